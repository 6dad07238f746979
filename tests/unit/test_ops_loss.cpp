// Softmax cross-entropy against a naive log-sum-exp in double, central finite differences and
// closed-form values at logits of 1e4; binary cross-entropy on logits against the textbook
// formula in long double, finite differences and closed forms at logits of +-100.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "kernels/host/loss.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

constexpr std::size_t kN = 6, kK = 10;
constexpr float kScale = 1.0f / 12.0f;  // this rank holds 6 of a global batch of 12

Labels random_labels(std::size_t n, unsigned seed) {
  const Labels labels("labels", n);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> cls(0, static_cast<int>(kK) - 1);
  for (std::size_t i = 0; i < n; ++i) labels(i) = cls(gen);
  return labels;
}

/// Naive loss: scale * sum_n (log sum_k exp(l[n,k]) - l[n,label]), in double, no max shift.
double naive_loss(const Tensor2& logits, const Labels& labels, double scale) {
  double total = 0;
  for (std::size_t n = 0; n < logits.extent(0); ++n) {
    double z = 0;
    for (std::size_t k = 0; k < logits.extent(1); ++k) z += std::exp(double{logits(n, k)});
    total += std::log(z) - logits(n, labels(n));
  }
  return total * scale;
}

/// Naive gradient: scale * (softmax - onehot), in double.
std::vector<double> naive_gradient(const Tensor2& logits, const Labels& labels, double scale) {
  std::vector<double> grad(logits.size());
  for (std::size_t n = 0; n < logits.extent(0); ++n) {
    double z = 0;
    for (std::size_t k = 0; k < logits.extent(1); ++k) z += std::exp(double{logits(n, k)});
    for (std::size_t k = 0; k < logits.extent(1); ++k)
      grad[n * logits.extent(1) + k] =
          scale * (std::exp(double{logits(n, k)}) / z - (static_cast<int>(k) == labels(n)));
  }
  return grad;
}

TEST(OpsLoss, ValueAndGradientMatchNaiveLogSumExp) {
  const Tensor2 logits("logits", kN, kK), dlogits("dlogits", kN, kK);
  fill_uniform(logits, 1, -3.0f, 3.0f);
  const Labels labels = random_labels(kN, 2);
  const double loss = softmax_cross_entropy(logits, labels, kScale, dlogits);
  EXPECT_NEAR(loss, naive_loss(logits, labels, kScale), 1e-12);
  EXPECT_TRUE(all_near(to_doubles(dlogits), naive_gradient(logits, labels, kScale), 1e-8, 1e-6));
}

TEST(OpsLoss, GradientMatchesCentralFiniteDifferences) {
  const Tensor2 logits("logits", kN, kK), dlogits("dlogits", kN, kK), scratch("scratch", kN, kK);
  fill_uniform(logits, 3, -3.0f, 3.0f);
  const Labels labels = random_labels(kN, 4);
  softmax_cross_entropy(logits, labels, kScale, dlogits);
  std::vector<double> fd(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) {
    float& v = logits.data()[i];
    const float saved = v;
    v = saved + 1e-3f;
    const double up_at = v, up = softmax_cross_entropy(logits, labels, kScale, scratch);
    v = saved - 1e-3f;
    const double down_at = v, down = softmax_cross_entropy(logits, labels, kScale, scratch);
    v = saved;
    fd[i] = (up - down) / (up_at - down_at);
  }
  // Truncation error ~ h^2/6 * |d3L| * scale, about 1e-8 here.
  EXPECT_TRUE(all_near(to_doubles(dlogits), fd, 1e-6));
}

TEST(OpsLoss, LogitsOfTenThousandDoNotOverflow) {
  // Row 0: all logits 1e4 -> loss log K, gradient 1/K - onehot. Rows 1, 2: one logit 1e4,
  // the rest 0 -> softmax is one-hot (exp(-1e4) underflows to 0 in double): loss 0 when the
  // label is that class, 1e4 otherwise. Row 3: all -1e4 with one 0 -> like rows 1, 2.
  const Tensor2 logits("logits", 4, kK), dlogits("dlogits", 4, kK);
  const Labels labels("labels", 4);
  for (std::size_t k = 0; k < kK; ++k) {
    logits(0, k) = 1e4f;
    logits(3, k) = -1e4f;
  }
  logits(1, 0) = logits(2, 0) = 1e4f;
  logits(3, 5) = 0.0f;
  labels(0) = 3;
  labels(1) = 0;
  labels(2) = 1;
  labels(3) = 2;
  const double loss = softmax_cross_entropy(logits, labels, 1.0f, dlogits);
  EXPECT_NEAR(loss, std::log(double{kK}) + 0.0 + 1e4 + 1e4, 1e-9);
  std::vector<double> want(4 * kK, 0.0);
  for (std::size_t k = 0; k < kK; ++k) want[k] = 1.0 / kK - (k == 3);
  want[2 * kK + 0] = 1.0;  // row 2: softmax puts all mass on class 0, label is 1
  want[2 * kK + 1] = -1.0;
  want[3 * kK + 5] = 1.0;  // row 3: mass on class 5, label is 2
  want[3 * kK + 2] = -1.0;
  EXPECT_TRUE(all_near(to_doubles(dlogits), want, 1e-7));
}

TEST(OpsLoss, GradientMayOverwriteLogits) {
  const Tensor2 logits("logits", kN, kK);
  fill_uniform(logits, 5, -3.0f, 3.0f);
  const Labels labels = random_labels(kN, 6);
  const double want_loss = naive_loss(logits, labels, kScale);
  const std::vector<double> want = naive_gradient(logits, labels, kScale);
  EXPECT_NEAR(softmax_cross_entropy(logits, labels, kScale, logits), want_loss, 1e-12);
  EXPECT_TRUE(all_near(to_doubles(logits), want, 1e-8, 1e-6));
}

TEST(OpsLoss, RejectsBadLabelsAndShapes) {
  const Tensor2 logits("logits", 3, kK), dlogits("dlogits", 3, kK);
  const Labels labels("labels", 3);
  labels(2) = static_cast<int>(kK);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { softmax_cross_entropy(logits, labels, 1.0f, dlogits); },
      "labels(2) is 10, expected a class in [0, 10)"));
  labels(2) = -1;
  EXPECT_THROW(softmax_cross_entropy(logits, labels, 1.0f, dlogits), std::invalid_argument);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { softmax_cross_entropy(logits, Labels("labels", 4), 1.0f, dlogits); },
      "labels is [4], expected [3]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { softmax_cross_entropy(logits, Labels("labels", 3), 1.0f, Tensor2("d", 3, 9)); },
      "dlogits is [3, 9], expected [3, 10]"));
}

/// Labels 0, 1, 1, 0, ... as floats.
Vector alternating_labels(std::size_t n) {
  const Vector labels("labels", n);
  for (std::size_t i = 0; i < n; ++i) labels(i) = static_cast<float>((i + 1) / 2 % 2);
  return labels;
}

/// -y log s(x) - (1 - y) log(1 - s(x)), s(x) = 1 / (1 + e^-x), summed and scaled, long double.
long double naive_bce(const Tensor2& logits, const Vector& labels, long double scale) {
  long double total = 0;
  for (std::size_t n = 0; n < logits.extent(0); ++n) {
    const long double s = 1.0L / (1.0L + std::exp(-static_cast<long double>(logits(n, 0))));
    total += -labels(n) * std::log(s) - (1.0L - labels(n)) * std::log(1.0L - s);
  }
  return total * scale;
}

TEST(OpsBce, ValueAndGradientMatchNaiveFormula) {
  constexpr std::size_t kRows = 16;
  const Tensor2 logits("logits", kRows, 1), dlogits("dlogits", kRows, 1);
  fill_uniform(logits, 7, -8.0f, 8.0f);
  const Vector labels = alternating_labels(kRows);
  const double loss = binary_cross_entropy_with_logits(logits, labels, kScale, dlogits);
  EXPECT_NEAR(loss, static_cast<double>(naive_bce(logits, labels, kScale)), 1e-13);
  std::vector<double> want(kRows);
  for (std::size_t n = 0; n < kRows; ++n)
    want[n] = kScale * (1.0 / (1.0 + std::exp(-double{logits(n, 0)})) - labels(n));
  EXPECT_TRUE(all_near(to_doubles(dlogits), want, 1e-9, 1e-6));
}

TEST(OpsBce, LogitsOfPlusMinusHundredStayFinite) {
  // Per sample (x, y): (100, 1) and (-100, 0) cost log(1 + e^-100) = e^-100 (1 - ...), which
  // log(sigmoid) in floating point would round to 0; (100, 0) and (-100, 1) cost 100 + e^-100.
  // Gradients sigmoid(x) - y: -e^-100, 1, -1, e^-100 (up to a relative e^-100).
  const double tiny = std::exp(-100.0);
  constexpr double kFloatDenormMin = std::numeric_limits<float>::denorm_min();
  const float xs[] = {100.0f, 100.0f, -100.0f, -100.0f};
  const float ys[] = {1.0f, 0.0f, 1.0f, 0.0f};
  const double want_loss[] = {tiny, 100.0, 100.0, tiny};
  const double want_grad[] = {-tiny, 1.0, -1.0, tiny};
  for (std::size_t k = 0; k < 4; ++k) {
    const Tensor2 logits("logits", 1, 1), dlogits("dlogits", 1, 1);
    const Vector labels("labels", 1);
    logits(0, 0) = xs[k];
    labels(0) = ys[k];
    const double loss = binary_cross_entropy_with_logits(logits, labels, 1.0f, dlogits);
    EXPECT_NEAR(loss, want_loss[k], 1e-12 * want_loss[k]) << k;
    // +-e^-100 is a float denormal: it is held to the denormal spacing.
    EXPECT_NEAR(dlogits(0, 0), want_grad[k],
                std::max(1e-6 * std::abs(want_grad[k]), 1.0 * kFloatDenormMin))
        << k;
  }
}

TEST(OpsBce, GradientMatchesCentralFiniteDifferencesInPlace) {
  constexpr std::size_t kRows = 8;
  const Tensor2 logits("logits", kRows, 1), dlogits("dlogits", kRows, 1), scratch("s", kRows, 1);
  fill_uniform(logits, 8, -4.0f, 4.0f);
  const Vector labels = alternating_labels(kRows);
  const Tensor2 copy("copy", kRows, 1);
  Kokkos::deep_copy(copy, logits);
  binary_cross_entropy_with_logits(copy, labels, kScale, copy);  // dlogits aliasing logits
  binary_cross_entropy_with_logits(logits, labels, kScale, dlogits);
  EXPECT_TRUE(all_near(to_doubles(copy), to_doubles(dlogits), 0.0));
  std::vector<double> fd(kRows);
  for (std::size_t n = 0; n < kRows; ++n) {
    float& v = logits(n, 0);
    const float saved = v;
    v = saved + 1e-3f;
    const double up_at = v, up = binary_cross_entropy_with_logits(logits, labels, kScale, scratch);
    v = saved - 1e-3f;
    const double down_at = v,
                 down = binary_cross_entropy_with_logits(logits, labels, kScale, scratch);
    v = saved;
    fd[n] = (up - down) / (up_at - down_at);
  }
  // Truncation error h^2/6 * max|sigmoid''| * scale = 1e-6/6 * 0.1 / 12, about 1e-9.
  EXPECT_TRUE(all_near(to_doubles(dlogits), fd, 1e-7));
}

TEST(OpsBce, RejectsLabelsOtherThanZeroOrOneAndBadShapes) {
  const Tensor2 logits("logits", 3, 1), dlogits("dlogits", 3, 1);
  const Vector labels = alternating_labels(3);
  labels(1) = 0.5f;
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { binary_cross_entropy_with_logits(logits, labels, 1.0f, dlogits); },
      "binary_cross_entropy_with_logits: labels(1) is 0.500000, expected 0 or 1"));
  labels(1) = 1.0f;
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { binary_cross_entropy_with_logits(Tensor2("l", 3, 2), labels, 1.0f, dlogits); },
      "logits is [3, 2], expected [3, 1]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { binary_cross_entropy_with_logits(logits, Vector("labels", 4), 1.0f, dlogits); },
      "labels is [4], expected [3]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { binary_cross_entropy_with_logits(logits, labels, 1.0f, Tensor2("d", 2, 1)); },
      "dlogits is [2, 1], expected [3, 1]"));
}

}  // namespace
}  // namespace scaletune::kernels
