// Fully-connected forward and backward against naive triple loops in double.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/host/linear.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

constexpr std::size_t kN = 5, kF = 7, kO = 3;

struct Problem {
  Tensor2 x{"x", kN, kF}, w{"w", kO, kF}, dy{"dy", kN, kO};
  Vector b{"b", kO};
  Problem() {
    fill_uniform(x, 1, -1.0f, 1.0f);
    fill_uniform(w, 2, -1.0f, 1.0f);
    fill_uniform(dy, 3, -1.0f, 1.0f);
    fill_uniform(b, 4, -1.0f, 1.0f);
  }
};

TEST(OpsLinear, ForwardMatchesNaive) {
  const Problem p;
  const Tensor2 y("y", kN, kO);
  Kokkos::deep_copy(y, 9.0f);  // stale values must be overwritten
  linear_forward(p.x, p.w, p.b, y);
  std::vector<double> want(kN * kO);
  for (std::size_t n = 0; n < kN; ++n)
    for (std::size_t o = 0; o < kO; ++o) {
      double sum = p.b(o);
      for (std::size_t f = 0; f < kF; ++f) sum += double{p.x(n, f)} * p.w(o, f);
      want[n * kO + o] = sum;
    }
  EXPECT_TRUE(all_near(to_doubles(y), want, 1e-5, 1e-5));
}

std::vector<double> naive_dw(const Problem& p) {
  std::vector<double> dw(kO * kF, 0.0);
  for (std::size_t o = 0; o < kO; ++o)
    for (std::size_t f = 0; f < kF; ++f)
      for (std::size_t n = 0; n < kN; ++n) dw[o * kF + f] += double{p.dy(n, o)} * p.x(n, f);
  return dw;
}

std::vector<double> naive_db(const Problem& p) {
  std::vector<double> db(kO, 0.0);
  for (std::size_t n = 0; n < kN; ++n)
    for (std::size_t o = 0; o < kO; ++o) db[o] += p.dy(n, o);
  return db;
}

std::vector<double> naive_dx(const Problem& p) {
  std::vector<double> dx(kN * kF, 0.0);
  for (std::size_t n = 0; n < kN; ++n)
    for (std::size_t f = 0; f < kF; ++f)
      for (std::size_t o = 0; o < kO; ++o) dx[n * kF + f] += double{p.dy(n, o)} * p.w(o, f);
  return dx;
}

TEST(OpsLinear, BackwardMatchesNaive) {
  const Problem p;
  const Tensor2 dw("dw", kO, kF), dx("dx", kN, kF);
  const Vector db("db", kO);
  Kokkos::deep_copy(dw, 9.0f);
  Kokkos::deep_copy(db, 9.0f);
  Kokkos::deep_copy(dx, 9.0f);
  linear_backward(p.x, p.w, p.dy, dw, db, dx);
  EXPECT_TRUE(all_near(to_doubles(dw), naive_dw(p), 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(db), naive_db(p), 1e-6, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(dx), naive_dx(p), 1e-5, 1e-5));
}

TEST(OpsLinear, BackwardSkipsDxWhenNull) {
  const Problem p;
  const Tensor2 dw("dw", kO, kF);
  const Vector db("db", kO);
  linear_backward(p.x, p.w, p.dy, dw, db, Tensor2());
  EXPECT_TRUE(all_near(to_doubles(dw), naive_dw(p), 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(db), naive_db(p), 1e-6, 1e-6));
}

TEST(OpsLinear, AccumulateAddsToTheGradientsAndOverwritesDx) {
  const Problem p;
  const Tensor2 dw("dw", kO, kF), dx("dx", kN, kF);
  const Vector db("db", kO);
  Kokkos::deep_copy(dx, 9.0f);  // stale values: dx is still overwritten
  linear_backward(p.x, p.w, p.dy, dw, db, dx);
  linear_backward(p.x, p.w, p.dy, dw, db, dx, GradMode::accumulate);
  std::vector<double> twice_dw = naive_dw(p), twice_db = naive_db(p);
  for (double& v : twice_dw) v *= 2;
  for (double& v : twice_db) v *= 2;
  EXPECT_TRUE(all_near(to_doubles(dw), twice_dw, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(db), twice_db, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(dx), naive_dx(p), 1e-5, 1e-5));
}

TEST(OpsLinear, RejectsWrongShapes) {
  const Problem p;
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { linear_forward(p.x, p.w, Vector("b", kO + 1), Tensor2("y", kN, kO)); },
      "linear_forward: b is [4], expected [3]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { linear_forward(p.x, Tensor2("w", kO, kF + 1), p.b, Tensor2("y", kN, kO)); },
      "w is [3, 8], expected [3, 7]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] {
        linear_backward(p.x, p.w, p.dy, Tensor2("dw", kO, kF), Vector("db", kO),
                        Tensor2("dx", kN, kO));
      },
      "dx is [5, 3], expected [5, 7]"));
}

}  // namespace
}  // namespace scaletune::kernels
