// Dropout forward and backward (kernels/cuda/dropout.hpp) against the host dropout_forward /
// dropout_backward with the same DropoutMask fields: bit for bit (the same keep decision for
// every element from SplitMix64, the same fp32 multiply by 1 / (1 - p), rounded to the
// activation type), for several (p, seed, step, first_row) and shapes (one row, odd, more
// elements than a block), in place, and p = 0 as the identity. Argument checks run without a
// device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/dropout.hpp"
#include "kernels/host/dropout.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::host_bits;

struct Shape {
  std::size_t rows, cols;
};
constexpr Shape kShapes[] = {{1, 1}, {1, 1000}, {37, 129}, {64, 768}};
const DropoutMask kMasks[] = {
    {0.0f, 1, 2, 0}, {0.1f, 7, 3, 0}, {0.5f, 42, 1000, 5}, {0.9f, ~0ULL, 12, 123456}};

ops::DropoutMask draw_of(const DropoutMask& m) {
  return ops::DropoutMask{m.p, m.seed, m.step, m.first_row};
}

class CudaDropout : public testing::DeviceTest,
                    public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaDropout, ForwardAndBackwardMatchHostBitForBit) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const auto [rows, cols] : kShapes)
    for (const DropoutMask& mask : kMasks) {
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols) + ", p " +
                               std::to_string(mask.p) + ", first_row " +
                               std::to_string(mask.first_row);
      const std::vector<float> x = testing::rounded(type, testing::uniform_vector(rows * cols, 1));
      const std::vector<float> dy = testing::rounded(type, testing::uniform_vector(rows * cols, 2));
      const Tensor2 xt("x", rows, cols), dyt("dy", rows, cols), y("y", rows, cols),
          dx("dx", rows, cols);
      for (std::size_t i = 0; i < x.size(); ++i) {
        xt.data()[i] = x[i];
        dyt.data()[i] = dy[i];
      }
      kernels::dropout_forward(xt, mask, y);
      kernels::dropout_backward(dyt, mask, dx);

      DeviceActivations x_d(type, x), y_d(type, x.size(), 7.0f), dy_d(type, dy);
      const auto r = static_cast<std::int64_t>(rows), c = static_cast<std::int64_t>(cols);
      dropout_forward(stream.get(), type, r, c, draw_of(mask), x_d.data(), y_d.data());
      dropout_backward(stream.get(), type, r, c, draw_of(mask), dy_d.data(), dy_d.data());
      stream.sync();
      EXPECT_EQ(y_d.bits(), host_bits(type, std::vector<float>(y.data(), y.data() + y.size())))
          << "y, " << what;
      EXPECT_EQ(dy_d.bits(), host_bits(type, std::vector<float>(dx.data(), dx.data() + dx.size())))
          << "dx, " << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaDropout, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaDropoutArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    dropout_forward(nullptr, core::DType::fp32, 2, 2, ops::DropoutMask{1.0f, 0, 0, 0}, &dummy, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "dropout_forward: p is 1.000000, expected in [0, 1)");
  }
  EXPECT_THROW(dropout_backward(nullptr, core::DType::fp32, 2, 2, ops::DropoutMask{0.5f, 0, 0, -1},
                                &dummy, &dummy),
               std::invalid_argument);
  EXPECT_THROW(dropout_backward(nullptr, core::DType::fp32, 2, 2, ops::DropoutMask{0.5f, 0, 0, 0},
                                nullptr, &dummy),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
