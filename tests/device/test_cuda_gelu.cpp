// GELU forward and backward (kernels/cuda/gelu.hpp) against the host gelu_forward /
// gelu_backward (the tanh form in double) on the same inputs: fp32 (1e-5) and fp16 / bf16
// (inputs rounded first; their tolerances), inputs over [-8, 8) plus large magnitudes where
// the curve is x or 0, odd sizes and more elements than a block, in place. Argument checks run
// without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/gelu.hpp"
#include "kernels/host/gelu.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::expect_all_close;

constexpr std::size_t kCounts[] = {1, 255, 1000, 70001};

std::vector<float> inputs(std::size_t n, unsigned seed) {
  std::vector<float> x = testing::uniform_vector(n, seed);
  for (float& v : x) v *= 8.0f;
  const float far[] = {30.0f, -30.0f, 1e4f, -1e4f};
  for (std::size_t i = 0; i < 4 && i < n; ++i) x[n - 1 - i] = far[i];
  return x;
}

std::vector<float> values(const Tensor2& t) {
  return std::vector<float>(t.data(), t.data() + t.size());
}

Tensor2 row(const std::vector<float>& v) {
  const Tensor2 t("t", 1, v.size());
  for (std::size_t i = 0; i < v.size(); ++i) t(0, i) = v[i];
  return t;
}

class CudaGelu : public testing::DeviceTest, public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaGelu, ForwardAndBackwardMatchHost) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const std::size_t n : kCounts) {
    const std::vector<float> x = testing::rounded(type, inputs(n, 1));
    const std::vector<float> dy = testing::rounded(type, testing::uniform_vector(n, 2));
    const Tensor2 y("y", 1, n), dx("dx", 1, n);
    kernels::gelu_forward(row(x), y);
    kernels::gelu_backward(row(x), row(dy), dx);

    DeviceActivations x_d(type, x), y_d(type, n, 7.0f), dy_d(type, dy);
    const auto count = static_cast<std::int64_t>(n);
    gelu_forward(stream.get(), type, count, x_d.data(), y_d.data());
    gelu_backward(stream.get(), type, count, x_d.data(), dy_d.data(), dy_d.data());  // in place
    stream.sync();
    const double tol = testing::tolerance(type);
    expect_all_close(y_d.to_host(), values(y), tol, "y, n = " + std::to_string(n));
    expect_all_close(dy_d.to_host(), values(dx), tol, "dx, n = " + std::to_string(n));
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaGelu, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaGeluArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    gelu_backward(nullptr, core::DType::bf16, 2, &dummy, nullptr, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gelu_backward: dy is null, expected a device pointer");
  }
  EXPECT_THROW(gelu_forward(nullptr, core::DType::int64, 2, &dummy, &dummy), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
