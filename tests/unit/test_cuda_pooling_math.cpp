// The bodies of the device global-average-pooling kernels (kernels/cuda/detail/pooling_math.hpp)
// against kernels/host/pooling.hpp: the backward bit for bit, the forward (an fp32 sum on the
// device, a double one on the host) within fp32 rounding, for odd plane sizes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/pooling_math.hpp"
#include "kernels/host/pooling.hpp"

namespace scaletune::kernels::cuda::detail {
namespace {

Tensor4 random_x(std::size_t n, std::size_t c, std::size_t h, std::size_t w) {
  Tensor4 x("x", n, c, h, w);
  std::mt19937 gen(4);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = uniform(gen);
  return x;
}

class PoolingMath : public ::testing::TestWithParam<std::size_t> {};

TEST_P(PoolingMath, ForwardMeanOfTheFp32SumMatchesHost) {
  const std::size_t side = GetParam(), n = 2, c = 3;
  const Tensor4 x = random_x(n, c, side, side + 2);
  Tensor2 want("y", n, c);
  global_avg_pool_forward(x, want);
  const auto area = static_cast<std::int64_t>(side * (side + 2));
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch) {
      float sum = 0.0f;
      double magnitude = 0.0;
      for (std::size_t i = 0; i < side; ++i)
        for (std::size_t j = 0; j < side + 2; ++j) {
          sum = add_rn(sum, x(b, ch, i, j));
          magnitude += std::abs(x(b, ch, i, j));
        }
      // A sequential fp32 sum errs by at most (area - 1) u sum|x| (u = 2^-24), so its mean by
      // u sum|x|; the final rounding adds u |mean| <= u sum|x|.
      const double bound = 2.0 * 0x1.0p-24 * magnitude;
      EXPECT_NEAR(plane_mean(sum, area), want(b, ch), bound) << b << ", " << ch;
    }
}

TEST_P(PoolingMath, BackwardEqualsHostBitForBit) {
  const std::size_t side = GetParam(), n = 2, c = 3;
  Tensor2 dy("dy", n, c);
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = uniform(gen);
  Tensor4 want("dx", n, c, side, side + 2);
  global_avg_pool_backward(dy, want);
  const float inv_area = inverse_area(static_cast<std::int64_t>(side * (side + 2)));
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch) {
      const float got = avg_pool_gradient(dy(b, ch), inv_area);
      const float w = want(b, ch, side - 1, side + 1);
      EXPECT_EQ(std::memcmp(&got, &w, sizeof(float)), 0);
    }
}

// 1x3 (a plane smaller than a warp), 7x9 (ResNet-50's 7x7 head, wider), 31x33 (longer than a
// warp's stride many times).
INSTANTIATE_TEST_SUITE_P(Planes, PoolingMath, ::testing::Values(1, 7, 31));

}  // namespace
}  // namespace scaletune::kernels::cuda::detail
