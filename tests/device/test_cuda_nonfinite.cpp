// The non-finite check (kernels/cuda/nonfinite.hpp) against std::isfinite on the host: buffers
// of fp32, fp16 and bf16 with one NaN, +inf or -inf at the first, a middle or the last element
// (of sizes from one element to more than the grid covers in one pass) set the flag; finite
// buffers, including the largest finite values, leave it 0; a set flag is never cleared.
// Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/nonfinite.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;

constexpr std::size_t kCounts[] = {1, 1000, 3'000'001};  // the last: more than one grid pass

/// *found after checking `values` (stored as `type`) with the flag starting at `initial`.
int check(core::DType type, const std::vector<float>& values, int initial) {
  const testing::TestStream stream;
  const DeviceActivations data(type, values);
  DeviceBuffer<int> found{std::span<const int>(std::vector<int>{initial})};
  check_nonfinite(stream.get(), type, static_cast<std::int64_t>(values.size()), data.data(),
                  found.data());
  stream.sync();
  return found.to_host()[0];
}

class CudaNonfinite : public testing::DeviceTest,
                      public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaNonfinite, FlagsNanAndInfAnywhere) {
  const core::DType type = GetParam();
  using limits = std::numeric_limits<float>;
  for (const std::size_t n : kCounts) {
    std::vector<float> v = testing::uniform_vector(n, 1);
    // The largest finite value of the type.
    v[0] = type == core::DType::fp16   ? 65504.0f
           : type == core::DType::bf16 ? detail::bf16_bits_to_float(0x7f7fu)
                                       : limits::max();
    EXPECT_EQ(check(type, v, 0), 0) << "finite, n = " << n;
    for (const float bad : {limits::quiet_NaN(), limits::infinity(), -limits::infinity()})
      for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
        std::vector<float> w = v;
        w[at] = bad;
        EXPECT_EQ(check(type, w, 0), 1) << bad << " at " << at << " of " << n;
      }
    EXPECT_EQ(check(type, v, 1), 1) << "a set flag stays set, n = " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaNonfinite, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaNonfiniteArguments, AreCheckedBeforeTouchingTheDevice) {
  float f = 0.0f;
  try {
    check_nonfinite(nullptr, core::DType::fp32, 4, &f, nullptr);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "check_nonfinite: found is null, expected a device pointer");
  }
  EXPECT_NO_THROW(check_nonfinite(nullptr, core::DType::fp16, 0, nullptr, nullptr));
}

}  // namespace
}  // namespace scaletune::kernels::cuda
