// BatchNorm2d against a naive double-precision reference (Ioffe & Szegedy 2015, Algorithm 1
// and its chain-rule backward), central finite differences, and a two-rank sync simulation.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "harness/core/communicator.hpp"
#include "kernels/host/batch_norm.hpp"
#include "test_ops_support.hpp"
#include "tests/support/fake_communicator.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

constexpr double kEps = 1e-5;

/// Naive training-mode batch norm in double, two-pass variance, for one [N,C,H,W] batch.
struct NaiveBatchNorm {
  std::vector<double> mean, invstd;   // [C]
  std::vector<double> y, dx;          // [N,C,H,W] flat
  std::vector<double> dgamma, dbeta;  // [C]
};

NaiveBatchNorm naive_batch_norm(const Tensor4& x, const Vector& gamma, const Vector& beta,
                                const Tensor4& dy) {
  const std::size_t n = x.extent(0), c = x.extent(1), h = x.extent(2), w = x.extent(3);
  const double m = static_cast<double>(n * h * w);
  NaiveBatchNorm r{std::vector<double>(c),        std::vector<double>(c),
                   std::vector<double>(x.size()), std::vector<double>(x.size()),
                   std::vector<double>(c),        std::vector<double>(c)};
  for (std::size_t ch = 0; ch < c; ++ch) {
    double sum = 0, sq = 0, sum_dy = 0, sum_dy_xhat = 0;
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) sum += x(b, ch, i, j);
    r.mean[ch] = sum / m;
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) sq += std::pow(x(b, ch, i, j) - r.mean[ch], 2);
    r.invstd[ch] = 1.0 / std::sqrt(sq / m + kEps);
    auto xhat = [&](std::size_t b, std::size_t i, std::size_t j) {
      return (x(b, ch, i, j) - r.mean[ch]) * r.invstd[ch];
    };
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          sum_dy += dy(b, ch, i, j);
          sum_dy_xhat += dy(b, ch, i, j) * xhat(b, i, j);
        }
    r.dbeta[ch] = sum_dy;
    r.dgamma[ch] = sum_dy_xhat;
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          const std::size_t at = ((b * c + ch) * h + i) * w + j;
          r.y[at] = gamma(ch) * xhat(b, i, j) + beta(ch);
          // dx = gamma * invstd / M * (M dy - sum dy - xhat * sum dy*xhat).
          r.dx[at] = gamma(ch) * r.invstd[ch] / m *
                     (m * dy(b, ch, i, j) - sum_dy - xhat(b, i, j) * sum_dy_xhat);
        }
  }
  return r;
}

/// Random x (uniform [-1, 3): mean and variance far from 0 and 1), gamma, beta and dy.
struct Batch {
  Tensor4 x, dy;
  Vector gamma, beta;
};

Batch random_batch(std::size_t n, std::size_t c, std::size_t h, std::size_t w, unsigned seed) {
  Batch b{Tensor4("x", n, c, h, w), Tensor4("dy", n, c, h, w), Vector("gamma", c),
          Vector("beta", c)};
  fill_uniform(b.x, seed, -1.0f, 3.0f);
  fill_uniform(b.dy, seed + 1, -1.0f, 1.0f);
  fill_uniform(b.gamma, seed + 2, 0.5f, 1.5f);
  fill_uniform(b.beta, seed + 3, -0.5f, 0.5f);
  return b;
}

/// Runs forward then backward; returns y, dx, dgamma, dbeta as doubles.
struct OpResult {
  std::vector<double> y, dx, dgamma, dbeta;
};

OpResult run_op(BatchNorm2d& bn, const Batch& b) {
  const Tensor4 y("y", b.x.extent(0), b.x.extent(1), b.x.extent(2), b.x.extent(3));
  const Tensor4 dx("dx", b.x.extent(0), b.x.extent(1), b.x.extent(2), b.x.extent(3));
  const Vector dgamma("dgamma", b.gamma.extent(0));
  const Vector dbeta("dbeta", b.gamma.extent(0));
  bn.forward(b.x, b.gamma, b.beta, y);
  bn.backward(b.x, b.gamma, b.dy, dgamma, dbeta, dx);
  return {to_doubles(y), to_doubles(dx), to_doubles(dgamma), to_doubles(dbeta)};
}

TEST(OpsBatchNorm, ForwardGivesZeroMeanUnitVariancePerChannel) {
  Batch b = random_batch(4, 3, 5, 6, 11);
  Kokkos::deep_copy(b.gamma, 1.0f);
  Kokkos::deep_copy(b.beta, 0.0f);
  const Tensor4 y("y", 4, 3, 5, 6);
  BatchNorm2d bn(3);
  bn.forward(b.x, b.gamma, b.beta, y);
  for (std::size_t c = 0; c < 3; ++c) {
    double sum = 0, sq = 0;
    for (std::size_t n = 0; n < 4; ++n)
      for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 6; ++j) {
          sum += y(n, c, i, j);
          sq += double{y(n, c, i, j)} * y(n, c, i, j);
        }
    const double m = 4 * 5 * 6;
    EXPECT_NEAR(sum / m, 0.0, 1e-6) << "channel " << c;
    // var(y) = var / (var + eps), within 1e-4 of 1 for var ~ 1.3.
    EXPECT_NEAR(sq / m - std::pow(sum / m, 2), 1.0, 1e-4) << "channel " << c;
  }
}

TEST(OpsBatchNorm, ForwardAndBackwardMatchNaiveFormula) {
  const Batch b = random_batch(3, 4, 5, 7, 21);
  BatchNorm2d bn(4);
  const OpResult got = run_op(bn, b);
  const NaiveBatchNorm want = naive_batch_norm(b.x, b.gamma, b.beta, b.dy);
  EXPECT_TRUE(all_near(got.y, want.y, 2e-6, 2e-6));
  EXPECT_TRUE(all_near(got.dx, want.dx, 2e-6, 1e-5));
  EXPECT_TRUE(all_near(got.dgamma, want.dgamma, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(got.dbeta, want.dbeta, 1e-5, 1e-5));
}

/// sum(y * g) of one forward, accumulated in double.
double weighted_output(BatchNorm2d& bn, const Batch& b) {
  const Tensor4 y("y", b.x.extent(0), b.x.extent(1), b.x.extent(2), b.x.extent(3));
  bn.forward(b.x, b.gamma, b.beta, y);
  double loss = 0;
  for (std::size_t i = 0; i < y.size(); ++i) loss += double{y.data()[i]} * b.dy.data()[i];
  return loss;
}

/// Central difference of weighted_output in element `i` of `v` (step h), divided by the
/// step actually taken after rounding to float.
double central_difference(BatchNorm2d& bn, const Batch& b, float* v, std::size_t i, float h) {
  const float saved = v[i];
  v[i] = saved + h;
  const double up_at = v[i];
  const double up = weighted_output(bn, b);
  v[i] = saved - h;
  const double down_at = v[i];
  const double down = weighted_output(bn, b);
  v[i] = saved;
  return (up - down) / (up_at - down_at);
}

TEST(OpsBatchNorm, BackwardMatchesFiniteDifferencesOfWeightedOutput) {
  const Batch b = random_batch(2, 3, 3, 4, 31);
  BatchNorm2d bn(3);
  const OpResult got = run_op(bn, b);
  // fp32 forward: h = 1e-2 keeps rounding noise (~1e-6 / h) and truncation (~h^2) near 1e-4.
  constexpr float kStep = 1e-2f;
  constexpr double kTol = 1e-3;
  std::vector<double> fd_dx(b.x.size()), fd_dgamma(3), fd_dbeta(3);
  for (std::size_t i = 0; i < b.x.size(); ++i)
    fd_dx[i] = central_difference(bn, b, b.x.data(), i, kStep);
  for (std::size_t c = 0; c < 3; ++c) {
    fd_dgamma[c] = central_difference(bn, b, b.gamma.data(), c, kStep);
    fd_dbeta[c] = central_difference(bn, b, b.beta.data(), c, kStep);
  }
  EXPECT_TRUE(all_near(got.dx, fd_dx, kTol));
  EXPECT_TRUE(all_near(got.dgamma, fd_dgamma, kTol, 1e-4));
  EXPECT_TRUE(all_near(got.dbeta, fd_dbeta, kTol, 1e-4));
}

/// Simulates the second rank of a two-rank group: each all-reduce adds that rank's
/// contribution (computed by the test) for the next call, in call order.
class OtherRankCommunicator : public scaletune::testing_support::FakeCommunicator {
 public:
  explicit OtherRankCommunicator(std::vector<std::vector<double>> contributions)
      : FakeCommunicator(0, 2), m_contributions(std::move(contributions)) {}
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp op) override {
    ASSERT_EQ(type, core::DType::fp64) << "only double reduces expected";
    ASSERT_EQ(send, recv) << "statistics are reduced in place";
    ASSERT_EQ(op, core::ReduceOp::sum);
    ASSERT_LT(m_calls, m_contributions.size()) << "more all-reduces than forward + backward";
    const std::vector<double>& other = m_contributions[m_calls++];
    ASSERT_EQ(count, other.size()) << "all-reduce " << m_calls;
    auto* data = static_cast<double*>(recv);
    for (std::size_t i = 0; i < count; ++i) data[i] += other[i];
  }
  std::size_t calls() const { return m_calls; }

 private:
  std::vector<std::vector<double>> m_contributions;
  std::size_t m_calls = 0;
};

/// Rows [begin, end) of a batch (x and dy), sharing gamma and beta.
Batch slice(const Batch& full, std::size_t begin, std::size_t end) {
  const std::size_t c = full.x.extent(1), h = full.x.extent(2), w = full.x.extent(3);
  Batch part{Tensor4("x", end - begin, c, h, w), Tensor4("dy", end - begin, c, h, w), full.gamma,
             full.beta};
  for (std::size_t n = begin; n < end; ++n)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          part.x(n - begin, ch, i, j) = full.x(n, ch, i, j);
          part.dy(n - begin, ch, i, j) = full.dy(n, ch, i, j);
        }
  return part;
}

/// What one rank holding `part` contributes: forward [sum x, sum x^2, count], backward
/// [sum dy, sum dy*xhat] with xhat from the global `mean` and `invstd`.
std::vector<std::vector<double>> contributions(const Batch& part, const NaiveBatchNorm& global) {
  const std::size_t n = part.x.extent(0), c = part.x.extent(1), h = part.x.extent(2),
                    w = part.x.extent(3);
  std::vector<double> fwd(2 * c + 1, 0.0), bwd(2 * c, 0.0);
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          const double x = part.x(b, ch, i, j), g = part.dy(b, ch, i, j);
          fwd[ch] += x;
          fwd[c + ch] += x * x;
          bwd[ch] += g;
          bwd[c + ch] += g * (x - global.mean[ch]) * global.invstd[ch];
        }
  fwd[2 * c] = static_cast<double>(n * h * w);
  return {fwd, bwd};
}

std::vector<double> concat(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

TEST(OpsBatchNorm, SyncOverTwoHalfBatchesEqualsOneFullBatch) {
  const Batch full = random_batch(4, 3, 4, 5, 41);
  const Batch half0 = slice(full, 0, 2);
  const Batch half1 = slice(full, 2, 4);
  BatchNorm2d alone(3);
  const OpResult want = run_op(alone, full);
  const NaiveBatchNorm global = naive_batch_norm(full.x, full.gamma, full.beta, full.dy);

  OtherRankCommunicator comm0(contributions(half1, global));
  OtherRankCommunicator comm1(contributions(half0, global));
  BatchNorm2d rank0(3, &comm0);
  BatchNorm2d rank1(3, &comm1);
  const OpResult got0 = run_op(rank0, half0);
  const OpResult got1 = run_op(rank1, half1);
  EXPECT_EQ(comm0.calls(), 2u);
  EXPECT_EQ(comm1.calls(), 2u);

  EXPECT_TRUE(all_near(concat(got0.y, got1.y), want.y, 1e-5));
  EXPECT_TRUE(all_near(concat(got0.dx, got1.dx), want.dx, 1e-5));
  // Parameter gradients stay per-rank sums; the gradient all-reduce adds them later.
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(got0.dgamma[c] + got1.dgamma[c], want.dgamma[c], 1e-5);
    EXPECT_NEAR(got0.dbeta[c] + got1.dbeta[c], want.dbeta[c], 1e-5);
  }
}

TEST(OpsBatchNorm, DxMayAliasDy) {
  const Batch b = random_batch(2, 2, 3, 3, 51);
  const NaiveBatchNorm want = naive_batch_norm(b.x, b.gamma, b.beta, b.dy);
  const Tensor4 y("y", 2, 2, 3, 3);
  const Vector dgamma("dgamma", 2), dbeta("dbeta", 2);
  BatchNorm2d bn(2);
  bn.forward(b.x, b.gamma, b.beta, y);
  bn.backward(b.x, b.gamma, b.dy, dgamma, dbeta, b.dy);
  EXPECT_TRUE(all_near(to_doubles(b.dy), want.dx, 2e-6, 1e-5));
}

TEST(OpsBatchNorm, RejectsWrongShapesAliasingAndMissingForward) {
  const Batch b = random_batch(2, 3, 2, 2, 61);
  const Tensor4 y("y", 2, 3, 2, 2);
  const Vector short_gamma("gamma", 2);
  const Vector dgamma("dgamma", 3), dbeta("dbeta", 3);
  BatchNorm2d bn(3);
  EXPECT_TRUE(test::throws_naming<std::logic_error>(
      [&] { bn.backward(b.x, b.gamma, b.dy, dgamma, dbeta, y); }, "forward has not run"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { bn.forward(b.x, short_gamma, b.beta, y); }, "gamma is [2], expected [3]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { bn.forward(b.x, b.gamma, b.beta, Tensor4("y", 2, 3, 2, 3)); },
      "y is [2, 3, 2, 3], expected [2, 3, 2, 2]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { bn.forward(b.x, b.gamma, b.beta, b.x); }, "must not alias"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { bn.forward(Tensor4("x", 2, 4, 2, 2), b.gamma, b.beta, y); }, "x is [2, 4, 2, 2]"));
  EXPECT_THROW(BatchNorm2d(0), std::invalid_argument);
}

TEST(OpsBatchNorm, StateBytesCountsMeanAndInverseStd) {
  EXPECT_EQ(BatchNorm2d(64).state_bytes(), (4 * 64 + 1) * 8);  // mean, invstd, 2C+1 sums
}

}  // namespace
}  // namespace scaletune::kernels
