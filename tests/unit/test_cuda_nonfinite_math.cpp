// The CUDA non-finite check's per-element test (kernels/cuda/detail/nonfinite_math.hpp) on the
// stored bits against std::isfinite of the value: every fp16 and bf16 pattern (through Eigen's
// conversions, the host's 16-bit types) and fp32 special values plus a sweep of the fp32 bit
// space.

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cuda/detail/nonfinite_math.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

TEST(CudaNonfiniteMath, EveryHalfAndBf16Pattern) {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float half = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
    const float bf16 = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
    ASSERT_EQ(detail::is_finite_element(test::Fp16{bits}), std::isfinite(half)) << std::hex << b;
    ASSERT_EQ(detail::is_finite_element(test::Bf16{bits}), std::isfinite(bf16)) << std::hex << b;
  }
}

TEST(CudaNonfiniteMath, Fp32SpecialValuesAndASweep) {
  using limits = std::numeric_limits<float>;
  for (const float v : {limits::infinity(), -limits::infinity(), limits::quiet_NaN(),
                        limits::signaling_NaN(), -limits::quiet_NaN()})
    EXPECT_FALSE(detail::is_finite_element(v)) << v;
  for (const float v : {0.0f, -0.0f, limits::max(), -limits::max(), limits::denorm_min(), 1.0f})
    EXPECT_TRUE(detail::is_finite_element(v)) << v;
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 4099) {
    const float v = detail::bits_float(static_cast<std::uint32_t>(b));
    ASSERT_EQ(detail::is_finite_element(v), std::isfinite(v)) << std::hex << b;
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
