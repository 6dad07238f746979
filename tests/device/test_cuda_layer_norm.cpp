// LayerNorm forward and backward (kernels/cuda/layer_norm.hpp) against the host
// layer_norm_forward / layer_norm_backward (double accumulation) on the same data: fp32 (1e-5)
// and fp16 / bf16 activations (inputs rounded first; outputs within their tolerances; the fp32
// statistics and parameter gradients within 1e-5), shapes with one feature, one row of 2^20
// features (a row far longer than a block), odd sizes and rows whose mean is large against
// their spread; y in place of x and dx in place of dy. Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/layer_norm.hpp"
#include "kernels/host/layer_norm.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::expect_all_close;

struct Shape {
  std::size_t rows, cols;
  float offset;  // added to x: a mean large against the spread
};
constexpr Shape kShapes[] = {{3, 1, 0.0f},    {1, 1 << 20, 0.0f}, {37, 129, 0.0f},
                             {64, 768, 0.0f}, {5, 1000, 50.0f},   {1, 300, 0.0f}};

template <class ViewType>
std::vector<float> values(const ViewType& v) {
  return std::vector<float>(v.data(), v.data() + v.size());
}

class CudaLayerNorm : public testing::DeviceTest,
                      public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaLayerNorm, ForwardAndBackwardMatchHost) {
  const core::DType type = GetParam();
  const double tol = testing::tolerance(type);
  const testing::TestStream stream;
  for (const auto [rows, cols, offset] : kShapes) {
    const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
    std::vector<float> x = testing::uniform_vector(rows * cols, 1);
    for (float& v : x) v += offset;
    x = testing::rounded(type, x);
    const std::vector<float> dy = testing::rounded(type, testing::uniform_vector(rows * cols, 2));
    std::vector<float> gamma = testing::uniform_vector(cols, 3),
                       beta = testing::uniform_vector(cols, 4);
    for (float& g : gamma) g += 1.5f;

    const Tensor2 xt("x", rows, cols), dyt("dy", rows, cols), y("y", rows, cols),
        dx("dx", rows, cols);
    const Vector g("g", cols), b("b", cols), mean("mean", rows), rstd("rstd", rows),
        dgamma("dgamma", cols), dbeta("dbeta", cols);
    for (std::size_t i = 0; i < x.size(); ++i) {
      xt.data()[i] = x[i];
      dyt.data()[i] = dy[i];
    }
    for (std::size_t c = 0; c < cols; ++c) {
      g(c) = gamma[c];
      b(c) = beta[c];
    }
    kernels::layer_norm_forward(xt, g, b, y, mean, rstd, 1e-5f);
    kernels::layer_norm_backward(xt, g, dyt, mean, rstd, dx, dgamma, dbeta);

    DeviceActivations x_d(type, x), y_d(type, x.size(), 7.0f), dy_d(type, dy);
    const DeviceBuffer<float> g_d{std::span<const float>(gamma)}, b_d{std::span<const float>(beta)};
    DeviceBuffer<float> mean_d(rows), rstd_d(rows), dgamma_d(cols), dbeta_d(cols);
    const auto r = static_cast<std::int64_t>(rows), c = static_cast<std::int64_t>(cols);
    layer_norm_forward(stream.get(), type, r, c, 1e-5f, x_d.data(), g_d.data(), b_d.data(),
                       y_d.data(), mean_d.data(), rstd_d.data());
    layer_norm_backward(stream.get(), type, r, c, x_d.data(), g_d.data(), dy_d.data(),
                        mean_d.data(), rstd_d.data(), dy_d.data(), dgamma_d.data(),
                        dbeta_d.data());  // dx in place of dy
    stream.sync();
    expect_all_close(y_d.to_host(), values(y), tol, "y " + what);
    expect_all_close(mean_d.to_host(), values(mean), 1e-5, "mean " + what);
    expect_all_close(rstd_d.to_host(), values(rstd), 1e-5, "rstd " + what);
    expect_all_close(dy_d.to_host(), values(dx), tol, "dx " + what);
    expect_all_close(dgamma_d.to_host(), values(dgamma), 1e-5, "dgamma " + what);
    expect_all_close(dbeta_d.to_host(), values(dbeta), 1e-5, "dbeta " + what);

    // In place: y over x.
    layer_norm_forward(stream.get(), type, r, c, 1e-5f, x_d.data(), g_d.data(), b_d.data(),
                       x_d.data(), mean_d.data(), rstd_d.data());
    stream.sync();
    expect_all_close(x_d.to_host(), values(y), tol, "y in place " + what);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaLayerNorm, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaLayerNormArguments, AreCheckedBeforeTouchingTheDevice) {
  float dummy = 0.0f;
  try {
    layer_norm_forward(nullptr, core::DType::fp32, 2, 0, 1e-5f, &dummy, &dummy, &dummy, &dummy,
                       &dummy, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "layer_norm_forward: cols is 0, expected >= 1");
  }
  EXPECT_THROW(layer_norm_forward(nullptr, core::DType::fp32, 2, 4, 0.0f, &dummy, &dummy, &dummy,
                                  &dummy, &dummy, &dummy),
               std::invalid_argument);
  try {
    layer_norm_backward(nullptr, core::DType::fp32, 2, 4, &dummy, &dummy, &dummy, &dummy, &dummy,
                        &dummy, &dummy, &dummy);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "layer_norm_backward: dx must not alias x");
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
