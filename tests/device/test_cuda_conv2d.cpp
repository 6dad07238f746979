// CudnnConv2d on a CudaContext against the host Conv2d (kernels/host/conv2d.hpp, im2col + GEMM)
// on the same random data: forward y, backward dw and dx, for the shapes ResNet-50 uses (3x3
// stride 1 pad 1, 1x1 stride 2, the 7x7 stride 2 pad 3 stem), relative tolerance 1e-3. Outputs
// start filled with a sentinel so that "overwritten" (beta = 0) is checked too. Layers share
// the context's one workspace.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device/cuda_context.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/cudnn_conv2d.hpp"
#include "kernels/host/conv2d.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/support/conv_cases.hpp"

namespace scaletune::kernels::cuda {
namespace {

using device::DeviceBuffer;
using device::testing::expect_all_close;
using device::testing::fill_uniform;
using device::testing::wait_for_device;
using CudnnConv2dOnDevice = device::testing::ContextTest;

constexpr double kRelTol = 1e-3;
constexpr float kSentinel = 7.0f;  // what device outputs hold before an op overwrites them

using testing_support::Case;
using testing_support::geometry;

std::span<const float> host_span(const Tensor4& t) {
  return {t.data(), t.size()};
}

/// Zero host tensor [n0, n1, n2, n3].
Tensor4 tensor(const char* label, int n0, int n1, int n2, int n3) {
  return Tensor4(std::string(label), static_cast<std::size_t>(n0), static_cast<std::size_t>(n1),
                 static_cast<std::size_t>(n2), static_cast<std::size_t>(n3));
}

/// Random host tensor [n0, n1, n2, n3] from a fixed seed.
Tensor4 random_tensor(const char* label, int n0, int n1, int n2, int n3, unsigned seed) {
  Tensor4 t = tensor(label, n0, n1, n2, n3);
  fill_uniform({t.data(), t.size()}, seed);
  return t;
}

/// Device buffer of `count` floats, every one kSentinel.
DeviceBuffer<float> sentinel_buffer(std::size_t count) {
  return DeviceBuffer<float>(std::vector<float>(count, kSentinel));
}

class CudnnConv2dVsHost : public device::testing::ContextTest,
                          public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    device::testing::ContextTest::SetUp();
    if (IsSkipped()) return;
    const Case& c = GetParam();
    const ConvGeometry& g = c.g;
    m_x = random_tensor("x", c.batch, g.in_channels, g.in_h, g.in_w, 11);
    m_w = random_tensor("w", g.out_channels, g.in_channels, g.kernel, g.kernel, 12);
    m_dy = random_tensor("dy", c.batch, g.out_channels, g.out_h(), g.out_w(), 13);
  }

  Tensor4 m_x, m_w, m_dy;
};

TEST_P(CudnnConv2dVsHost, ForwardMatchesHost) {
  const Case& c = GetParam();
  const Conv2d host(c.g);
  const Tensor4 y = tensor("y", c.batch, c.g.out_channels, c.g.out_h(), c.g.out_w());
  host.forward(m_x, m_w, y, Vector("ws", host.workspace_floats()));

  CudnnConv2d conv(context(), c.g, c.batch);
  ASSERT_EQ(conv.output_floats(), y.size());
  EXPECT_GE(context().workspace_bytes(), conv.workspace_bytes());
  const DeviceBuffer<float> x_d(host_span(m_x)), w_d(host_span(m_w));
  DeviceBuffer<float> y_d = sentinel_buffer(conv.output_floats());
  wait_for_device();
  conv.forward(x_d.data(), w_d.data(), y_d.data());
  context().fence();
  expect_all_close(y_d.to_host(), host_span(y), kRelTol, std::string(c.name) + " y");
}

TEST_P(CudnnConv2dVsHost, BackwardMatchesHost) {
  const Case& c = GetParam();
  const Conv2d host(c.g);
  const Tensor4 dw = tensor("dw", c.g.out_channels, c.g.in_channels, c.g.kernel, c.g.kernel);
  const Tensor4 dx = tensor("dx", c.batch, c.g.in_channels, c.g.in_h, c.g.in_w);
  host.backward(m_x, m_w, m_dy, dw, dx, Vector("ws", host.workspace_floats()));

  CudnnConv2d conv(context(), c.g, c.batch);
  ASSERT_EQ(conv.input_floats(), dx.size());
  ASSERT_EQ(conv.weight_floats(), dw.size());
  const DeviceBuffer<float> x_d(host_span(m_x)), w_d(host_span(m_w)), dy_d(host_span(m_dy));
  DeviceBuffer<float> dw_d = sentinel_buffer(dw.size()), dx_d = sentinel_buffer(dx.size());
  wait_for_device();
  conv.backward(x_d.data(), w_d.data(), dy_d.data(), dw_d.data(), dx_d.data());
  context().fence();
  expect_all_close(dw_d.to_host(), host_span(dw), kRelTol, std::string(c.name) + " dw");
  expect_all_close(dx_d.to_host(), host_span(dx), kRelTol, std::string(c.name) + " dx");
}

TEST_P(CudnnConv2dVsHost, BackwardWithoutDxComputesOnlyDw) {
  const Case& c = GetParam();
  const Conv2d host(c.g);
  const Tensor4 dw = tensor("dw", c.g.out_channels, c.g.in_channels, c.g.kernel, c.g.kernel);
  host.backward(m_x, m_w, m_dy, dw, Tensor4(), Vector("ws", host.workspace_floats()));

  CudnnConv2d conv(context(), c.g, c.batch);
  const DeviceBuffer<float> x_d(host_span(m_x)), w_d(host_span(m_w)), dy_d(host_span(m_dy));
  DeviceBuffer<float> dw_d = sentinel_buffer(dw.size());
  wait_for_device();
  conv.backward(x_d.data(), w_d.data(), dy_d.data(), dw_d.data(), nullptr);
  context().fence();
  expect_all_close(dw_d.to_host(), host_span(dw), kRelTol, std::string(c.name) + " dw");
}

const Case kCases[] = {
    {"k3_s1_p1", geometry(16, 24, 3, 1, 1, 14, 14), 2},
    {"k1_s2_p0", geometry(32, 16, 1, 2, 0, 15, 13), 3},
    {"k7_s2_p3_stem", geometry(3, 16, 7, 2, 3, 32, 30), 2},
};

INSTANTIATE_TEST_SUITE_P(ResNetShapes, CudnnConv2dVsHost, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST_F(CudnnConv2dOnDevice, NullPointerNamesTheArgument) {
  CudnnConv2d conv(context(), geometry(2, 3, 3, 1, 1, 5, 5), 1);
  DeviceBuffer<float> x_d(conv.input_floats()), w_d(conv.weight_floats());
  DeviceBuffer<float> y_d(conv.output_floats());
  try {
    conv.forward(x_d.data(), nullptr, y_d.data());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "CudnnConv2d::forward: w is null, expected a device pointer");
  }
  EXPECT_THROW(conv.backward(x_d.data(), w_d.data(), y_d.data(), nullptr, x_d.data()),
               std::invalid_argument);
}

TEST_F(CudnnConv2dOnDevice, BadBatchOrGeometryIsRejected) {
  try {
    CudnnConv2d conv(context(), geometry(3, 8, 3, 1, 1, 8, 8), 0);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "CudnnConv2d: batch = 0, expected >= 1");
  }
  // The host Conv2d's rules: a stride of 0 and a kernel larger than the padded input.
  EXPECT_THROW(CudnnConv2d(context(), geometry(3, 8, 3, 0, 1, 8, 8), 2), std::invalid_argument);
  EXPECT_THROW(CudnnConv2d(context(), geometry(3, 8, 7, 1, 0, 4, 4), 2), std::invalid_argument);
}

TEST_F(CudnnConv2dOnDevice, LayersShareTheContextsWorkspaceAndStillMatchTheHost) {
  // Two layers, one workspace: it covers the larger need, and each layer asks the context for
  // it at each call (so a layer built later that grows it cannot leave an earlier one behind).
  const Case small{"k1", geometry(8, 8, 1, 1, 0, 9, 9), 2};
  const Case stem{"stem", geometry(3, 16, 7, 2, 3, 32, 30), 2};
  CudnnConv2d first(context(), small.g, small.batch);
  CudnnConv2d second(context(), stem.g, stem.batch);
  EXPECT_GE(context().workspace_bytes(),
            std::max(first.workspace_bytes(), second.workspace_bytes()));
  const auto expect_forward_matches_host = [&](const Case& c, CudnnConv2d& conv) {
    const Tensor4 x = random_tensor("x", c.batch, c.g.in_channels, c.g.in_h, c.g.in_w, 21);
    const Tensor4 w =
        random_tensor("w", c.g.out_channels, c.g.in_channels, c.g.kernel, c.g.kernel, 22);
    const Conv2d host(c.g);
    const Tensor4 y = tensor("y", c.batch, c.g.out_channels, c.g.out_h(), c.g.out_w());
    host.forward(x, w, y, Vector("ws", host.workspace_floats()));
    const DeviceBuffer<float> x_d(host_span(x)), w_d(host_span(w));
    DeviceBuffer<float> y_d = sentinel_buffer(conv.output_floats());
    wait_for_device();
    conv.forward(x_d.data(), w_d.data(), y_d.data());
    context().fence();
    expect_all_close(y_d.to_host(), host_span(y), kRelTol, std::string(c.name) + " y");
  };
  expect_forward_matches_host(small, first);
  expect_forward_matches_host(stem, second);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
