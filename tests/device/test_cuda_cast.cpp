// Casts between fp32, fp16 and bf16 and the fp32 accumulate-cast (kernels/cuda/cast.hpp) against
// the host's conversions (Eigen's half and bfloat16, round to nearest even), bit for bit, on
// values that include every 16-bit tie region: random values over many binades, the halfway
// points next to 1 and 65504, subnormals, zeros and infinities. Argument checks run without a
// device.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernels/cuda/cast.hpp"
#include "harness/device/device_buffer.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;

/// Values that exercise rounding: random over 2^-30..2^20 in magnitude, both signs, and edges.
std::vector<float> cast_inputs() {
  std::vector<float> v;
  const std::vector<float> u = testing::uniform_vector(5001, 7);
  for (std::size_t i = 0; i < u.size(); ++i)
    v.push_back(std::ldexp(u[i], static_cast<int>(i % 51) - 30));
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (const float e : {0.0f, -0.0f, inf, -inf, 1.0f + 0x1.0p-11f, 1.0f + 3 * 0x1.0p-11f,
                        1.0f + 0x1.0p-8f, 1.0f + 3 * 0x1.0p-8f, 65504.0f, 65519.0f, 65520.0f,
                        0x1.0p-24f, 0x1.0p-25f, 0x1.8p-25f, 1e-40f, 3.0e38f})
    v.push_back(e);
  return v;
}

/// The host's bits of `value` stored as `type` (Eigen's conversions).
std::uint32_t eigen_bits(core::DType type, float value) {
  switch (type) {
    case core::DType::fp16:
      return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(value));
    case core::DType::bf16:
      return Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(value));
    default:
      return detail::float_bits(value);
  }
}

/// (source type, destination type)
class CudaCast : public testing::DeviceTest,
                 public ::testing::WithParamInterface<std::tuple<core::DType, core::DType>> {};

TEST_P(CudaCast, MatchesTheHostsRoundingBitForBit) {
  const auto [src_type, dst_type] = GetParam();
  const testing::TestStream stream;
  const std::vector<float> src = testing::rounded(src_type, cast_inputs());
  const DeviceActivations src_d(src_type, src);
  DeviceActivations dst_d(dst_type, src.size(), 7.0f);
  cast(stream.get(), static_cast<std::int64_t>(src.size()), src_type, src_d.data(), dst_type,
       dst_d.data());
  stream.sync();
  std::vector<std::uint32_t> want;
  for (const float v : src) want.push_back(eigen_bits(dst_type, v));
  EXPECT_EQ(dst_d.bits(), want);
}

INSTANTIATE_TEST_SUITE_P(
    TypePairs, CudaCast,
    ::testing::Combine(::testing::ValuesIn(testing::kActivationTypes),
                       ::testing::ValuesIn(testing::kActivationTypes)),
    [](const ::testing::TestParamInfo<std::tuple<core::DType, core::DType>>& param_info) {
      return std::string(core::dtype_key(std::get<0>(param_info.param))) + "_to_" +
             std::string(core::dtype_key(std::get<1>(param_info.param)));
    });

class CudaAccumulateCast : public testing::DeviceTest,
                           public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaAccumulateCast, AddsTheExactValueInFp32) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  const std::vector<float> src = testing::rounded(type, testing::uniform_vector(3001, 8));
  const std::vector<float> acc = testing::uniform_vector(src.size(), 9);
  const DeviceActivations src_d(type, src);
  DeviceBuffer<float> acc_d{std::span<const float>(acc)};
  accumulate_cast(stream.get(), static_cast<std::int64_t>(src.size()), type, src_d.data(),
                  acc_d.data());
  accumulate_cast(stream.get(), static_cast<std::int64_t>(src.size()), type, src_d.data(),
                  acc_d.data());
  stream.sync();
  const std::vector<float> got = acc_d.to_host();
  for (std::size_t i = 0; i < src.size(); ++i)
    ASSERT_EQ(detail::float_bits(got[i]), detail::float_bits((acc[i] + src[i]) + src[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(Types, CudaAccumulateCast, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaCastArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    cast(nullptr, 3, core::DType::fp32, &dummy, core::DType::fp64, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "cast: dst has element type fp64, expected fp32, fp16 or bf16");
  }
  EXPECT_THROW(accumulate_cast(nullptr, 3, core::DType::fp16, &dummy, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
