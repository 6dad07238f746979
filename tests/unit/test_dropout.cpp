// Inverted dropout: the identity at p = 0, outputs 0 or x / (1 - p), a kept fraction within
// sampling error of 1 - p, a backward that reuses the forward's mask (checked against a naive
// masked loop and central differences), and masks that depend only on (seed, step, global
// element), not on how the rows are split.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "kernels/host/dropout.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

/// Keep bits of the mask `mask` draws for an [rows, features] tensor: forward on all ones.
std::vector<bool> keep_bits(std::size_t rows, std::size_t features, const DropoutMask& mask) {
  const Tensor2 ones("ones", rows, features), y("y", rows, features);
  Kokkos::deep_copy(ones, 1.0f);
  dropout_forward(ones, mask, y);
  std::vector<bool> keep(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) keep[i] = y.data()[i] != 0.0f;
  return keep;
}

double fraction_true(const std::vector<bool>& bits) {
  std::size_t count = 0;
  for (const bool b : bits) count += b ? 1 : 0;
  return static_cast<double>(count) / static_cast<double>(bits.size());
}

/// Five standard errors of a proportion with probability q over n Bernoulli draws.
double five_sigma(double q, std::size_t n) {
  return 5.0 * std::sqrt(q * (1.0 - q) / static_cast<double>(n));
}

TEST(Dropout, ZeroProbabilityIsTheIdentity) {
  const Tensor2 x("x", 6, 10), y("y", 6, 10), dx("dx", 6, 10);
  fill_uniform(x, 1, -3.0f, 3.0f);
  const DropoutMask mask{0.0f, 7, 3, 0};
  dropout_forward(x, mask, y);
  EXPECT_TRUE(all_near(to_doubles(y), to_doubles(x), 0.0));
  dropout_backward(x, mask, dx);
  EXPECT_TRUE(all_near(to_doubles(dx), to_doubles(x), 0.0));
}

TEST(Dropout, KeptFractionIsWithinSamplingErrorOfOneMinusP) {
  constexpr std::size_t rows = 400, features = 250;
  for (const float p : {0.1f, 0.5f, 0.9f}) {
    const double kept = fraction_true(keep_bits(rows, features, {p, 42, 0, 0}));
    EXPECT_NEAR(kept, 1.0 - p, five_sigma(1.0 - p, rows * features)) << "p = " << p;
  }
}

TEST(Dropout, ForwardZeroesOrScalesAndBackwardReusesTheMask) {
  constexpr float p = 0.3f;
  const Tensor2 x("x", 8, 31), y("y", 8, 31), dy("dy", 8, 31), dx("dx", 8, 31);
  fill_uniform(x, 2, 0.5f, 1.5f);  // no zeros, so y == 0 exactly where the mask drops
  fill_uniform(dy, 3, -1.0f, 1.0f);
  const DropoutMask mask{p, 9, 4, 17};
  dropout_forward(x, mask, y);
  dropout_backward(dy, mask, dx);
  std::vector<double> want_y(x.size()), want_dx(x.size());
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool keep = y.data()[i] != 0.0f;
    dropped += keep ? 0 : 1;
    want_y[i] = keep ? double{x.data()[i]} / (1.0 - p) : 0.0;
    want_dx[i] = keep ? double{dy.data()[i]} / (1.0 - p) : 0.0;
  }
  EXPECT_GT(dropped, 0u);
  EXPECT_LT(dropped, x.size());
  EXPECT_TRUE(all_near(to_doubles(y), want_y, 0.0, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(dx), want_dx, 0.0, 1e-6));
}

TEST(Dropout, BackwardMatchesCentralDifferences) {
  const Tensor2 x("x", 4, 8), y("y", 4, 8), dy("dy", 4, 8), dx("dx", 4, 8);
  fill_uniform(x, 4, -1.0f, 1.0f);
  fill_uniform(dy, 5, -1.0f, 1.0f);
  const DropoutMask mask{0.5f, 11, 2, 3};
  dropout_backward(dy, mask, dx);
  const auto loss = [&] {  // sum dy * y, in double
    dropout_forward(x, mask, y);
    double sum = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += double{dy.data()[i]} * y.data()[i];
    return sum;
  };
  std::vector<double> numeric(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float saved = x.data()[i];
    x.data()[i] = saved + 0.25f;
    const double up = loss();
    x.data()[i] = saved - 0.25f;
    const double down = loss();
    x.data()[i] = saved;
    numeric[i] = (up - down) / 0.5;  // exact up to rounding: the map is linear in x
  }
  EXPECT_TRUE(all_near(to_doubles(dx), numeric, 1e-6, 1e-6));
}

TEST(Dropout, MaskDoesNotDependOnTheRowSplit) {
  constexpr std::size_t rows = 12, features = 7;
  const Tensor2 x("x", rows, features), whole("whole", rows, features);
  fill_uniform(x, 6, -1.0f, 1.0f);
  const DropoutMask mask{0.4f, 123, 8, 0};
  dropout_forward(x, mask, whole);
  for (const std::vector<std::size_t>& cuts :
       {std::vector<std::size_t>{0, 5, rows}, std::vector<std::size_t>{0, 1, 4, rows}}) {
    for (std::size_t part = 0; part + 1 < cuts.size(); ++part) {
      const std::size_t first = cuts[part], count = cuts[part + 1] - cuts[part];
      const Tensor2 local("local", count, features), out("out", count, features);
      for (std::size_t n = 0; n < count; ++n)
        for (std::size_t f = 0; f < features; ++f) local(n, f) = x(first + n, f);
      DropoutMask shard = mask;
      shard.first_row = static_cast<std::int64_t>(first);
      dropout_forward(local, shard, out);
      for (std::size_t n = 0; n < count; ++n)
        for (std::size_t f = 0; f < features; ++f)
          EXPECT_EQ(out(n, f), whole(first + n, f)) << "row " << first + n << ", feature " << f;
    }
  }
}

TEST(Dropout, StepsAndSeedsDrawIndependentMasks) {
  constexpr std::size_t rows = 300, features = 200;
  constexpr double p = 0.5;
  const std::vector<bool> base = keep_bits(rows, features, {0.5f, 1, 0, 0});
  const std::vector<bool> next_step = keep_bits(rows, features, {0.5f, 1, 1, 0});
  const std::vector<bool> next_seed = keep_bits(rows, features, {0.5f, 2, 0, 0});
  // Two independent masks agree on an element with probability p^2 + (1 - p)^2.
  const double agree = p * p + (1 - p) * (1 - p);
  for (const auto* other : {&next_step, &next_seed}) {
    std::vector<bool> same(base.size());
    for (std::size_t i = 0; i < base.size(); ++i) same[i] = base[i] == (*other)[i];
    EXPECT_NEAR(fraction_true(same), agree, five_sigma(agree, base.size()));
  }
}

TEST(Dropout, RejectsBadProbabilityOffsetAndShapes) {
  const Tensor2 x("x", 3, 4), wrong("wrong", 3, 5);
  using test::throws_naming;
  for (const float p : {1.0f, -0.1f, std::numeric_limits<float>::quiet_NaN()})
    EXPECT_TRUE(throws_naming<std::invalid_argument>(
        [&] {
          dropout_forward(x, {p, 0, 0, 0}, x);
        },
        "dropout_forward: p is "))
        << "p = " << p;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        dropout_backward(x, {0.5f, 0, 0, -1}, x);
      },
      "dropout_backward: first_row is -1, expected >= 0"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        dropout_forward(x, {0.5f, 0, 0, 0}, wrong);
      },
      "dropout_forward: y is [3, 5], expected [3, 4]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        dropout_backward(x, {0.5f, 0, 0, 0}, wrong);
      },
      "dropout_backward: dx is [3, 5], expected [3, 4]"));
}

}  // namespace
}  // namespace scaletune::kernels
