// The 16-bit conversions the CUDA kernels' host bodies use (kernels/cuda/detail/cast_math.hpp)
// against Eigen's half and bfloat16, the host ops' 16-bit types, bit for bit: every one of the
// 65,536 patterns loaded, and fp32 values stored, including every tie between two adjacent
// 16-bit values, the values either side of it, the overflow and subnormal boundaries, and a
// sweep through the whole fp32 bit space. Any NaN must stay a NaN (payloads may differ).

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cuda/detail/cast_math.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using detail::bits_float;
using detail::float_bits;

std::uint16_t eigen_half_bits(float v) {
  return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(v));
}
std::uint16_t eigen_bf16_bits(float v) {
  return Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(v));
}
float eigen_half_value(std::uint16_t bits) {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
}
float eigen_bf16_value(std::uint16_t bits) {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
}

/// Expects the conversion of `v` to agree with Eigen's bits (or both to be NaN); counts misses.
template <class Ours, class Theirs, class Load>
void expect_store_matches(float v, Ours ours, Theirs theirs, Load load, int& misses) {
  const std::uint16_t got = ours(v), want = theirs(v);
  if (got == want) return;
  if (std::isnan(load(got)) && std::isnan(load(want))) return;
  if (misses++ < 5)
    ADD_FAILURE() << "store of " << v << " (bits 0x" << std::hex << float_bits(v) << "): got 0x"
                  << got << ", Eigen 0x" << want;
}

/// fp32 values at and around every tie between adjacent 16-bit values: for each finite
/// 16-bit pattern, the midpoint to the next pattern (in fp32, exactly), one fp32 ulp below and
/// above, the value itself and its negation.
template <class Load>
std::vector<float> ties_and_neighbours(Load load) {
  std::vector<float> values;
  for (std::uint32_t b = 0; b < 0x7fffu; ++b) {
    const float lo = load(static_cast<std::uint16_t>(b));
    const float hi = load(static_cast<std::uint16_t>(b + 1));
    if (!std::isfinite(lo)) continue;
    const float mid = std::isfinite(hi) ? lo + (hi - lo) / 2 : lo;
    for (const float v : {lo, mid, std::nextafter(mid, 0.0f),
                          std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  return values;
}

/// Boundaries: zeros, infinities, NaNs, fp32 subnormals, half's overflow threshold and its
/// smallest subnormal's halfway point, fp32's largest value.
std::vector<float> boundaries() {
  constexpr float inf = std::numeric_limits<float>::infinity();
  return {0.0f,
          -0.0f,
          inf,
          -inf,
          std::numeric_limits<float>::quiet_NaN(),
          bits_float(0xffc00001u),
          bits_float(0x7f800001u),
          1e-45f,
          -1e-45f,
          std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::min(),
          65504.0f,
          65519.996f,
          65520.0f,
          65536.0f,
          0x1.0p-24f,
          0x1.0p-25f,
          std::nextafter(0x1.0p-25f, 1.0f),
          0x1.8p-25f,
          0x1.0p-14f,
          std::nextafter(0x1.0p-14f, 0.0f),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          bits_float(0x7f7f8000u),
          bits_float(0x7f7f7fffu)};
}

TEST(CudaCastMath, EveryHalfPatternLoadsAsEigenDoes) {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float got = detail::half_bits_to_float(bits), want = eigen_half_value(bits);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      ASSERT_EQ(float_bits(got), float_bits(want)) << "pattern 0x" << std::hex << b;
    }
  }
}

TEST(CudaCastMath, EveryBf16PatternLoadsAsEigenDoes) {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float got = detail::bf16_bits_to_float(bits), want = eigen_bf16_value(bits);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      ASSERT_EQ(float_bits(got), float_bits(want)) << "pattern 0x" << std::hex << b;
    }
  }
}

TEST(CudaCastMath, HalfStoresRoundToNearestEvenAsEigen) {
  int misses = 0;
  std::vector<float> values = ties_and_neighbours(eigen_half_value);
  const std::vector<float> edges = boundaries();
  values.insert(values.end(), edges.begin(), edges.end());
  for (const float v : values)
    expect_store_matches(v, detail::float_to_half_bits, eigen_half_bits, eigen_half_value, misses);
  // A sweep through every 257th fp32 bit pattern (all exponents, both signs).
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 257)
    expect_store_matches(bits_float(static_cast<std::uint32_t>(b)), detail::float_to_half_bits,
                         eigen_half_bits, eigen_half_value, misses);
  EXPECT_EQ(misses, 0);
}

TEST(CudaCastMath, Bf16StoresRoundToNearestEvenAsEigen) {
  int misses = 0;
  std::vector<float> values = ties_and_neighbours(eigen_bf16_value);
  const std::vector<float> edges = boundaries();
  values.insert(values.end(), edges.begin(), edges.end());
  for (const float v : values)
    expect_store_matches(v, detail::float_to_bf16_bits, eigen_bf16_bits, eigen_bf16_value, misses);
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 257)
    expect_store_matches(bits_float(static_cast<std::uint32_t>(b)), detail::float_to_bf16_bits,
                         eigen_bf16_bits, eigen_bf16_value, misses);
  EXPECT_EQ(misses, 0);
}

TEST(CudaCastMath, KnownRoundings) {
  // 1 + 2^-11 is the tie between 1 and 1 + 2^-10 in fp16: to even (1). 1 + 3 * 2^-11 is the tie
  // between 1 + 2^-10 and 1 + 2^-9: to even (1 + 2^-9).
  EXPECT_EQ(detail::float_to_half_bits(1.0f + 0x1.0p-11f), 0x3c00u);
  EXPECT_EQ(detail::float_to_half_bits(1.0f + 3 * 0x1.0p-11f), 0x3c02u);
  EXPECT_EQ(detail::float_to_half_bits(65520.0f), 0x7c00u);  // the tie above 65504: up, to inf
  EXPECT_EQ(detail::float_to_half_bits(std::nextafter(65520.0f, 0.0f)), 0x7bffu);
  EXPECT_EQ(detail::float_to_half_bits(0x1.0p-25f), 0x0000u);  // half the smallest subnormal
  EXPECT_EQ(detail::float_to_half_bits(0x1.8p-25f), 0x0001u);
  EXPECT_EQ(detail::float_to_bf16_bits(1.0f + 0x1.0p-8f), 0x3f80u);  // tie to even
  EXPECT_EQ(detail::float_to_bf16_bits(1.0f + 3 * 0x1.0p-8f), 0x3f82u);
  EXPECT_EQ(detail::float_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80u);  // to inf
}

TEST(CudaCastMath, CastAndAccumulateGoThroughFp32) {
  const test::Fp16 h = detail::from_float<test::Fp16>(1.0f + 0x1.0p-10f);
  // fp16 -> bf16: 1 + 2^-10 is below bf16's half ulp at 1 (2^-8): rounds to 1.
  EXPECT_EQ(detail::cast_element<test::Bf16>(h).bits, 0x3f80u);
  EXPECT_EQ(detail::cast_element<float>(h), 1.0f + 0x1.0p-10f);
  EXPECT_EQ(detail::cast_element<test::Fp16>(h).bits, h.bits);
  EXPECT_EQ(detail::accumulate_cast_element(2.0f, h), 3.0f + 0x1.0p-10f);
  EXPECT_EQ(detail::accumulate_cast_element(2.0f, detail::from_float<test::Bf16>(-0.5f)), 1.5f);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
