// The bodies of the device batch-normalisation kernels (kernels/cuda/detail/batch_norm_math.hpp)
// run on the host in the kernels' order (fp32 sums, per-channel constants, per-element
// updates) against BatchNorm2d (kernels/host/batch_norm.hpp, double sums) on the same input:
// y, dx, dgamma and dbeta agree to fp32 accuracy. Also: the channel of an element in both
// layouts, and the reduction's split count.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/detail/batch_norm_math.hpp"
#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/host/batch_norm.hpp"

namespace scaletune::kernels::cuda::detail {
namespace {

/// A [N, C, H, W] tensor with values uniform in [lo, hi) per channel shifted by the channel
/// index (so channels have different means).
Tensor4 random_tensor(std::size_t n, std::size_t c, std::size_t h, std::size_t w, float lo,
                      float hi, unsigned seed) {
  Tensor4 t("t", n, c, h, w);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(lo, hi);
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j)
          t(b, ch, i, j) = uniform(gen) + 0.5f * static_cast<float>(ch);
  return t;
}

Vector random_vector(std::size_t c, unsigned seed) {
  Vector v("v", c);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  for (std::size_t i = 0; i < c; ++i) v(i) = uniform(gen);
  return v;
}

/// Expects |got - want| <= tol * max(1, |want|).
void expect_close(float got, float want, double tol, const char* what, std::size_t at) {
  EXPECT_LE(std::abs(static_cast<double>(got) - want),
            tol * std::max(1.0, std::abs(static_cast<double>(want))))
      << what << " [" << at << "]: " << got << " vs " << want;
}

TEST(BatchNormMath, ForwardAndBackwardInTheKernelsOrderMatchHost) {
  const std::size_t n = 3, c = 4, h = 5, w = 7;
  const Tensor4 x = random_tensor(n, c, h, w, -1.0f, 1.0f, 1);
  const Tensor4 dy = random_tensor(n, c, h, w, -1.0f, 1.0f, 2);
  const Vector gamma = random_vector(c, 3), beta = random_vector(c, 4);
  BatchNorm2d host(static_cast<int>(c));
  Tensor4 y_want("y", n, c, h, w), dx_want("dx", n, c, h, w);
  Vector dgamma_want("dgamma", c), dbeta_want("dbeta", c);
  host.forward(x, gamma, beta, y_want);
  host.backward(x, gamma, dy, dgamma_want, dbeta_want, dx_want);

  const double count = static_cast<double>(n * h * w);
  for (std::size_t ch = 0; ch < c; ++ch) {
    float sum = 0.0f, sum_squares = 0.0f;
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          const float v = x(b, ch, i, j);
          sum = add_rn(sum, v);
          sum_squares = add_rn(sum_squares, mul_rn(v, v));
        }
    const ChannelStatistics s = channel_statistics(sum, sum_squares, count, 1e-5f);
    const float scale = channel_scale(gamma(ch), s.invstd);
    float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j) {
          expect_close(normalize(x(b, ch, i, j), s.mean, scale, beta(ch)), y_want(b, ch, i, j),
                       2e-6, "y", ch);
          const float g = dy(b, ch, i, j);
          sum_dy = add_rn(sum_dy, g);
          sum_dy_xhat =
              add_rn(sum_dy_xhat, mul_rn(g, normalized_input(x(b, ch, i, j), s.mean, s.invstd)));
        }
    expect_close(sum_dy, dbeta_want(ch), 1e-5, "dbeta", ch);
    expect_close(sum_dy_xhat, dgamma_want(ch), 1e-5, "dgamma", ch);
    const BackwardCoefficients k =
        backward_coefficients(gamma(ch), s.invstd, sum_dy, sum_dy_xhat, count);
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < h; ++i)
        for (std::size_t j = 0; j < w; ++j)
          expect_close(input_gradient(x(b, ch, i, j), dy(b, ch, i, j), s.mean, k),
                       dx_want(b, ch, i, j), 1e-5, "dx", ch);
  }
}

TEST(BatchNormMath, StatisticsUseTheBiasedVarianceAndEps) {
  // x = {1, 2, 3, 6}: mean 3, biased variance (4 + 1 + 0 + 9) / 4 = 3.5.
  const ChannelStatistics s = channel_statistics(12.0f, 50.0f, 4.0, 0.5f);
  EXPECT_EQ(s.mean, 3.0f);
  EXPECT_EQ(s.invstd, static_cast<float>(1.0 / std::sqrt(4.0)));
  // A variance rounded below zero is clamped (constant channel, inexact sums).
  EXPECT_EQ(channel_statistics(3.0f, 2.9999998f, 3.0, 0.25f).invstd, 2.0f);
}

TEST(BatchNormMath, ChannelOfAnElementInBothLayouts) {
  const std::uint32_t n = 2, c = 3, h = 4, w = 5;
  for (std::uint32_t b = 0; b < n; ++b)
    for (std::uint32_t ch = 0; ch < c; ++ch)
      for (std::uint32_t s = 0; s < h * w; ++s) {
        EXPECT_EQ(channel_of<std::uint32_t>((b * c + ch) * h * w + s, c, h * w), ch);  // NCHW
        EXPECT_EQ(channel_of<std::uint32_t>((b * h * w + s) * c + ch, c, 1), ch);      // NHWC
      }
}

TEST(BatchNormMath, ReductionSplitsDependOnTheSizesOnly) {
  EXPECT_EQ(reduction_splits(1, kNchwElementsPerSplit), 1);
  EXPECT_EQ(reduction_splits(kNchwElementsPerSplit, kNchwElementsPerSplit), 1);
  EXPECT_EQ(reduction_splits(kNchwElementsPerSplit + 1, kNchwElementsPerSplit), 2);
  EXPECT_EQ(reduction_splits(std::int64_t{256} * 112 * 112, kNhwcRowsPerSplit), kMaxSplits);
}

}  // namespace
}  // namespace scaletune::kernels::cuda::detail
