// bias_add and bias_grad (kernels/cuda/bias.hpp) against the host linear layer
// (kernels/host/linear.hpp) on the same data: the forward's bias through linear_forward with an
// identity input (y = b + I * Y0^T^T = Y0 + b exactly), the bias gradient through
// linear_backward (db = sum_n dy, overwritten or accumulated); fp32, fp16 and bf16 activations,
// one row, odd shapes, more rows than a block's warps, 0 rows. Argument checks run without a
// device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/bias.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/host/linear.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::expect_all_close;

struct Shape {
  std::size_t rows, cols;
};
constexpr Shape kShapes[] = {{1, 1}, {1, 300}, {37, 129}, {1000, 33}, {65, 768}};

class CudaBias : public testing::DeviceTest, public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaBias, AddMatchesHostLinearForward) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const auto [rows, cols] : kShapes) {
    const std::vector<float> y0 = testing::rounded(type, testing::uniform_vector(rows * cols, 1));
    const std::vector<float> b = testing::uniform_vector(cols, 2);
    // Host: y = b + x w^T with x = I [rows, rows] and w = Y0^T [cols, rows], so x w^T = Y0.
    const Tensor2 x("x", rows, rows), w("w", cols, rows), y("y", rows, cols);
    const Vector bias("b", cols);
    for (std::size_t r = 0; r < rows; ++r) x(r, r) = 1.0f;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) w(c, r) = y0[r * cols + c];
    for (std::size_t c = 0; c < cols; ++c) bias(c) = b[c];
    linear_forward(x, w, bias, y);

    DeviceActivations y_d(type, y0);
    const DeviceBuffer<float> b_d{std::span<const float>(b)};
    bias_add(stream.get(), type, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols),
             b_d.data(), y_d.data());
    stream.sync();
    expect_all_close(y_d.to_host(), std::vector<float>(y.data(), y.data() + y.size()),
                     testing::tolerance(type),
                     "y " + std::to_string(rows) + "x" + std::to_string(cols));
  }
}

TEST_P(CudaBias, GradMatchesHostLinearBackward) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const auto [rows, cols] : kShapes) {
    for (const GradMode mode : {GradMode::overwrite, GradMode::accumulate}) {
      const std::vector<float> dy = testing::rounded(type, testing::uniform_vector(rows * cols, 3));
      const std::vector<float> db0 = testing::uniform_vector(cols, 4);
      // Host: one zero feature, so only db matters.
      const Tensor2 x("x", rows, 1), w("w", cols, 1), dw("dw", cols, 1), dyt("dy", rows, cols);
      const Vector db("db", cols);
      for (std::size_t i = 0; i < dy.size(); ++i) dyt.data()[i] = dy[i];
      for (std::size_t c = 0; c < cols; ++c) db(c) = db0[c];
      linear_backward(x, w, dyt, dw, db, Tensor2(), mode);

      const DeviceActivations dy_d(type, dy);
      DeviceBuffer<float> db_d{std::span<const float>(db0)};
      bias_grad(stream.get(), type, static_cast<std::int64_t>(rows),
                static_cast<std::int64_t>(cols), dy_d.data(), db_d.data(),
                mode == GradMode::accumulate);
      stream.sync();
      // fp32 sums of `rows` terms: the fp32 tolerance, whatever dy's type (dy was rounded).
      expect_all_close(db_d.to_host(), std::vector<float>(db.data(), db.data() + cols), 1e-5,
                       "db " + std::to_string(rows) + "x" + std::to_string(cols));
    }
  }
}

TEST_P(CudaBias, GradOfNoRowsIsZeroOrUnchanged) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  const std::vector<float> db0 = {1.5f, -2.0f, 3.0f};
  DeviceBuffer<float> db_d{std::span<const float>(db0)};
  bias_grad(stream.get(), type, 0, 3, nullptr, db_d.data(), true);
  stream.sync();
  EXPECT_EQ(db_d.to_host(), db0);
  bias_grad(stream.get(), type, 0, 3, nullptr, db_d.data(), false);
  stream.sync();
  EXPECT_EQ(db_d.to_host(), std::vector<float>(3, 0.0f));
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBias, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaBiasArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    bias_grad(nullptr, core::DType::fp32, 4, 3, &dummy, nullptr, false);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "bias_grad: db is null, expected a device pointer");
  }
  EXPECT_THROW(bias_add(nullptr, core::DType::fp32, -1, 3, &dummy, &dummy), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
