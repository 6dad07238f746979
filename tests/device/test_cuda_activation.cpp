// ReLU, add_inplace, scale and fill kernels (kernels/cuda/activation.hpp, elementwise.hpp)
// against the host ops of kernels/host/activation.hpp on the same inputs, for fp32, fp16 and
// bf16 (inputs rounded first): bit for bit, since kernel and host do the same fp32 operation
// and the kernel rounds its result to nearest even. Sizes: one element, odd sizes and more
// elements than one block, in place where allowed. Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/cuda/activation.hpp"
#include "kernels/cuda/elementwise.hpp"
#include "kernels/host/activation.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::host_bits;
using testing::rounded;
using testing::uniform_vector;

constexpr std::size_t kCounts[] = {1, 255, 1000, 70001};

/// x in [-1, 1) with exact zeros of both signs (when there is room).
std::vector<float> inputs(std::size_t n, unsigned seed) {
  std::vector<float> x = uniform_vector(n, seed);
  if (n > 2) {
    x[1] = 0.0f;
    x[2] = -0.0f;
  }
  return x;
}

/// [1, n] host tensor holding `v`.
Tensor2 row(const std::vector<float>& v) {
  const Tensor2 t("t", 1, v.size());
  for (std::size_t i = 0; i < v.size(); ++i) t(0, i) = v[i];
  return t;
}

std::vector<float> values(const Tensor2& t) {
  return std::vector<float>(t.data(), t.data() + t.size());
}

class CudaElementwise : public testing::DeviceTest,
                        public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaElementwise, ReluForwardAndBackwardMatchHostBitForBit) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const std::size_t n : kCounts) {
    const std::vector<float> x = rounded(type, inputs(n, 1)), dy = rounded(type, inputs(n, 2));
    const Tensor2 y("y", 1, n), dx("dx", 1, n);
    kernels::relu_forward(row(x), y);
    kernels::relu_backward(y, row(dy), dx);

    DeviceActivations x_d(type, x), y_d(type, n, 7.0f), dy_d(type, dy);
    relu_forward(stream.get(), type, static_cast<std::int64_t>(n), x_d.data(), y_d.data());
    relu_backward(stream.get(), type, static_cast<std::int64_t>(n), y_d.data(), dy_d.data(),
                  dy_d.data());  // dx in place of dy
    stream.sync();
    EXPECT_EQ(y_d.bits(), host_bits(type, values(y))) << "y, n = " << n;
    EXPECT_EQ(dy_d.bits(), host_bits(type, values(dx))) << "dx, n = " << n;

    relu_forward(stream.get(), type, static_cast<std::int64_t>(n), x_d.data(), x_d.data());
    stream.sync();
    EXPECT_EQ(x_d.bits(), host_bits(type, values(y))) << "in place, n = " << n;
  }
}

TEST_P(CudaElementwise, AddInplaceMatchesHostBitForBit) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const std::size_t n : kCounts) {
    const std::vector<float> x = rounded(type, inputs(n, 3)), y0 = rounded(type, inputs(n, 4));
    const Tensor4 x4("x", 1, 1, 1, n), y4("y", 1, 1, 1, n);
    for (std::size_t i = 0; i < n; ++i) {
      x4(0, 0, 0, i) = x[i];
      y4(0, 0, 0, i) = y0[i];
    }
    kernels::add_inplace(y4, x4);
    DeviceActivations x_d(type, x), y_d(type, y0);
    add_inplace(stream.get(), type, static_cast<std::int64_t>(n), x_d.data(), y_d.data());
    stream.sync();
    EXPECT_EQ(y_d.bits(), host_bits(type, std::vector<float>(y4.data(), y4.data() + n)))
        << "n = " << n;
  }
}

TEST_P(CudaElementwise, ScaleAndFillRoundTheFp32ResultOnce) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const std::size_t n : kCounts) {
    const std::vector<float> x = rounded(type, inputs(n, 5));
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = -0.37f * x[i];
    DeviceActivations x_d(type, x), y_d(type, n, 7.0f);
    scale(stream.get(), type, static_cast<std::int64_t>(n), -0.37f, x_d.data(), y_d.data());
    fill(stream.get(), type, static_cast<std::int64_t>(n), 0.1f, x_d.data());
    stream.sync();
    EXPECT_EQ(y_d.bits(), host_bits(type, want)) << "scale, n = " << n;
    EXPECT_EQ(x_d.bits(), host_bits(type, std::vector<float>(n, 0.1f))) << "fill, n = " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaElementwise, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaElementwiseArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    relu_forward(nullptr, core::DType::fp32, 4, nullptr, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "relu_forward: x is null, expected a device pointer");
  }
  try {
    add_inplace(nullptr, core::DType::int32, 4, &dummy, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "add_inplace: y has element type int32, expected fp32, fp16 or bf16");
  }
  EXPECT_THROW(scale(nullptr, core::DType::fp16, -1, 1.0f, &dummy, &dummy), std::invalid_argument);
  // Nothing to touch: null pointers are fine and nothing is launched.
  EXPECT_NO_THROW(fill(nullptr, core::DType::bf16, 0, 1.0f, nullptr));
}

}  // namespace
}  // namespace scaletune::kernels::cuda
