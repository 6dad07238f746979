// Per-element bodies of the CUDA GELU kernels (kernels/cuda/detail/gelu_math.hpp: the tanh form
// through sigmoid(2u), in fp32) against the host ops gelu_forward / gelu_backward (the tanh form
// in double) on a dense grid over [-12, 12], where the curve bends, and on values out to
// +-FLT_MAX, where y -> x or 0 and the slope -> 1 or 0 and nothing may turn into NaN. fp32
// agrees to a few ulps (relative 1e-6, or 1e-6 absolute near 0 where the host's value
// underflows); fp16 / bf16 outputs are the host's result on the rounded input, rounded, up to
// one 16-bit ulp where that result lies within fp32 error of a rounding tie. Below x ~ -7 the
// host's double tanh(u) is -1 exactly, so its gelu and slope are 0 where the sigmoid form
// keeps the tiny true values (bf16 holds them, down to 1e-38): there the 16-bit check is
// absolute (1e-6), as the fp32 one.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cuda/detail/gelu_math.hpp"
#include "kernels/host/gelu.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_matrix;
using test::host_values;
using test::rounded;
using test::stored;

/// [-12, 12] in steps of 1/512, then the far values (both signs).
std::vector<float> grid() {
  std::vector<float> x;
  for (int i = -12 * 512; i <= 12 * 512; ++i) x.push_back(static_cast<float>(i) / 512.0f);
  for (const float far : {20.0f, 1e3f, 1e10f, 7e12f, 1e13f, 1e19f, 2e19f, 1e30f,
                          std::numeric_limits<float>::max(), 1e-20f, 1e-40f}) {
    x.push_back(far);
    x.push_back(-far);
  }
  return x;
}

/// Host gelu_forward and gelu_backward (with dy = 1: the slope) on x.
struct HostGelu {
  std::vector<float> y, slope;
};
HostGelu host_gelu(const std::vector<float>& x) {
  const Tensor2 xt = host_matrix(x, 1, x.size());
  const Tensor2 y("y", 1, x.size()), ones("ones", 1, x.size()), dx("dx", 1, x.size());
  Kokkos::deep_copy(ones, 1.0f);
  gelu_forward(xt, y);
  gelu_backward(xt, ones, dx);
  return {host_values(y), host_values(dx)};
}

/// |got - want| <= 1e-6 max(|want|, 1).
bool close(float got, float want) {
  return std::abs(static_cast<double>(got) - want) <= 1e-6 * std::max(1.0, std::abs(double{want}));
}

TEST(CudaGeluMath, Fp32MatchesHostToAFewUlps) {
  const std::vector<float> x = grid();
  const HostGelu host = host_gelu(x);
  int misses = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float y = detail::gelu(x[i]), slope = detail::gelu_slope(x[i]);
    ASSERT_FALSE(std::isnan(y) || std::isnan(slope)) << "x = " << x[i];
    if ((!close(y, host.y[i]) || !close(slope, host.slope[i])) && misses++ < 5)
      ADD_FAILURE() << "x = " << x[i] << ": gelu " << y << " vs host " << host.y[i] << ", slope "
                    << slope << " vs host " << host.slope[i];
  }
  EXPECT_EQ(misses, 0);
}

TEST(CudaGeluMath, LimitsAreExact) {
  constexpr float big = std::numeric_limits<float>::max();
  EXPECT_EQ(detail::gelu(big), big);
  EXPECT_EQ(detail::gelu(-big), 0.0f);
  EXPECT_EQ(detail::gelu_slope(big), 1.0f);
  EXPECT_EQ(detail::gelu_slope(-big), 0.0f);
  EXPECT_EQ(detail::gelu(0.0f), 0.0f);
  EXPECT_EQ(detail::gelu_slope(0.0f), 0.5f);
}

/// Position of a 16-bit value on the number line in ulps (sign-magnitude to two's complement:
/// +0 and -0 are both 0, adjacent values differ by 1).
int ulp_position(std::uint32_t bits) {
  const int magnitude = static_cast<int>(bits & 0x7fffu);
  return (bits & 0x8000u) != 0 ? -magnitude : magnitude;
}

/// 16-bit ulps between a and b.
template <class T>
int ulps(T a, T b) {
  return std::abs(ulp_position(test::bits_of(a)) - ulp_position(test::bits_of(b)));
}

template <class T>
class CudaGeluMath16 : public ::testing::Test {};
using SixteenBit = ::testing::Types<test::Fp16, test::Bf16>;
TYPED_TEST_SUITE(CudaGeluMath16, SixteenBit, test::ElementTypeNames);

TYPED_TEST(CudaGeluMath16, MatchesHostOnRoundedInputsWithinOneUlp) {
  using T = TypeParam;
  std::vector<float> x;  // the grid rounded to T, without what overflowed to +-inf
  for (const float v : rounded<T>(grid()))
    if (std::isfinite(v)) x.push_back(v);
  const HostGelu host = host_gelu(x);
  const std::vector<T> x_t = stored<T>(x), y_host = stored<T>(host.y),
                       slope_host = stored<T>(host.slope);
  const T one = detail::from_float<T>(1.0f);
  int misses = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T y = detail::gelu_element(x_t[i]), slope = detail::gelu_grad_element(x_t[i], one);
    const auto near = [](T got, T want) {
      return ulps(got, want) <= 1 || close(detail::to_float(got), detail::to_float(want));
    };
    if ((!near(y, y_host[i]) || !near(slope, slope_host[i])) && misses++ < 5)
      ADD_FAILURE() << "x = " << x[i] << ": gelu " << detail::to_float(y) << " vs host "
                    << detail::to_float(y_host[i]) << ", slope " << detail::to_float(slope)
                    << " vs host " << detail::to_float(slope_host[i]);
  }
  EXPECT_EQ(misses, 0);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
