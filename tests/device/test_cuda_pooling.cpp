// Device global average pooling (kernels/cuda/pooling.hpp) against the host ops
// (kernels/host/pooling.hpp) on the same input, in NCHW and NHWC (the NHWC input is the host's
// NCHW tensor transposed): the forward to fp32 accuracy (the device sums in fp32, the host in
// double) or 16-bit rounding, the backward bit for bit in fp32. Planes of one element, ResNet's
// 7x7 and one larger than many warps; channel counts not multiples of a block.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/pooling.hpp"
#include "kernels/host/pooling.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/device/nhwc_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using core::DType;
using testing::DeviceActivations;
using testing::expect_all_close;
using testing::host_bits;
using testing::nchw_to_nhwc;
using testing::rounded;
using testing::tolerance;
using testing::uniform_vector;

/// (dtype, layout, plane side, channels)
class CudaGlobalAvgPool
    : public testing::DeviceTest,
      public ::testing::WithParamInterface<std::tuple<DType, ActivationLayout, int, int>> {};

TEST_P(CudaGlobalAvgPool, ForwardMatchesHost) {
  const auto [dtype, layout, side, channels] = GetParam();
  const std::size_t n = 3, c = static_cast<std::size_t>(channels);
  const std::size_t h = static_cast<std::size_t>(side), w = h + 1;
  const std::vector<float> x = rounded(dtype, uniform_vector(n * c * h * w, 1));
  Tensor4 x_host("x", n, c, h, w);
  std::copy(x.begin(), x.end(), x_host.data());
  Tensor2 want("y", n, c);
  kernels::global_avg_pool_forward(x_host, want);
  const DeviceActivations x_device(
      dtype, layout == ActivationLayout::nchw ? x : nchw_to_nhwc(x, n, c, h, w));
  DeviceActivations y(dtype, n * c, 0.0f);
  const ActivationShape shape{layout, static_cast<std::int64_t>(n), channels, side, side + 1};
  global_avg_pool_forward(nullptr, shape, dtype, x_device.data(), y.data());
  expect_all_close(y.to_host(), std::vector<float>(want.data(), want.data() + want.size()),
                   tolerance(dtype), "y");
}

TEST_P(CudaGlobalAvgPool, BackwardMatchesHost) {
  const auto [dtype, layout, side, channels] = GetParam();
  const std::size_t n = 2, c = static_cast<std::size_t>(channels);
  const std::size_t h = static_cast<std::size_t>(side), w = h + 1;
  const std::vector<float> dy = rounded(dtype, uniform_vector(n * c, 2));
  Tensor2 dy_host("dy", n, c);
  std::copy(dy.begin(), dy.end(), dy_host.data());
  Tensor4 want("dx", n, c, h, w);
  kernels::global_avg_pool_backward(dy_host, want);
  std::vector<float> want_values(want.data(), want.data() + want.size());
  if (layout == ActivationLayout::nhwc) want_values = nchw_to_nhwc(want_values, n, c, h, w);
  const DeviceActivations dy_device(dtype, dy);
  DeviceActivations dx(dtype, n * c * h * w, 0.0f);
  const ActivationShape shape{layout, static_cast<std::int64_t>(n), channels, side, side + 1};
  global_avg_pool_backward(nullptr, shape, dtype, dy_device.data(), dx.data());
  // Same fp32 product as the host, then one rounding into dtype.
  EXPECT_EQ(host_bits(DType::fp32, dx.to_host()),
            host_bits(DType::fp32, rounded(dtype, want_values)));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaGlobalAvgPool,
    ::testing::Combine(::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                       ::testing::Values(ActivationLayout::nchw, ActivationLayout::nhwc),
                       ::testing::Values(1, 7, 40), ::testing::Values(3, 300)));

using CudaGlobalAvgPoolErrors = testing::DeviceTest;

TEST_F(CudaGlobalAvgPoolErrors, AnEmptyPlaneOrAnIntegerTypeIsRejected) {
  DeviceBuffer<float> x(4), y(4);
  EXPECT_THROW(global_avg_pool_forward(nullptr, {ActivationLayout::nchw, 2, 2, 0, 3}, DType::fp32,
                                       x.data(), y.data()),
               std::invalid_argument);
  EXPECT_THROW(global_avg_pool_forward(nullptr, {ActivationLayout::nchw, 2, 2, 1, 1}, DType::int64,
                                       x.data(), y.data()),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
