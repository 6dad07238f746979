// HostBackend's convolutional-network ops: convolutions made by the backend give what
// kernels::Conv2d gives with its own workspace, and share one workspace sized for the largest;
// batch norm and max pooling give what the host ops give and report their state; global
// average pooling against a naive loop.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/host/batch_norm.hpp"
#include "kernels/host/conv2d.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/host/pooling.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using ops::DType;
using test::all_near;
using test::doubles;
using test::tensor_of;
using test::throws_naming;
using test::uniform_floats;

ops::ConvGeometry geometry(int c, int k, int kernel, int stride, int pad, int h, int w) {
  return {.in_channels = c,
          .out_channels = k,
          .kernel = kernel,
          .stride = stride,
          .pad = pad,
          .in_h = h,
          .in_w = w};
}

/// A host view of v as [n0, n1, n2, n3].
Tensor4 view4(std::vector<float>& v, std::size_t n0, std::size_t n1, std::size_t n2,
              std::size_t n3) {
  return Tensor4(v.data(), n0, n1, n2, n3);
}

TEST(HostBackendConvOps, Conv2dEqualsTheHostConvolution) {
  HostBackend backend;
  const ops::ConvGeometry g = geometry(3, 4, 3, 2, 1, 7, 6);
  constexpr int n = 2;
  const std::size_t ho = std::size_t(g.out_h()), wo = std::size_t(g.out_w());
  std::vector<float> x = uniform_floats(n * 3 * 7 * 6, 1), w = uniform_floats(4 * 3 * 3 * 3, 2);
  std::vector<float> dy = uniform_floats(n * 4 * ho * wo, 3), y(dy.size()), dw(w.size()),
                     dx(x.size());
  const auto conv = backend.make_conv2d(g, n, DType::fp32);
  const ops::Tensor tx = tensor_of(x, {n, 3, 7, 6}), tw = tensor_of(w, {4, 3, 3, 3});
  const ops::Tensor tdy = tensor_of(dy, {n, 4, std::int64_t(ho), std::int64_t(wo)});
  conv->forward(tx, tw, tensor_of(y, {n, 4, std::int64_t(ho), std::int64_t(wo)}));
  conv->backward(tx, tw, tdy, tensor_of(dw, {4, 3, 3, 3}), tensor_of(dx, {n, 3, 7, 6}));

  const Conv2d reference(g);
  const Vector ws("ws", reference.workspace_floats());
  std::vector<float> want_y(y.size()), want_dw(dw.size()), want_dx(dx.size());
  reference.forward(view4(x, n, 3, 7, 6), view4(w, 4, 3, 3, 3), view4(want_y, n, 4, ho, wo), ws);
  reference.backward(view4(x, n, 3, 7, 6), view4(w, 4, 3, 3, 3), view4(dy, n, 4, ho, wo),
                     view4(want_dw, 4, 3, 3, 3), view4(want_dx, n, 3, 7, 6), ws);
  EXPECT_EQ(y, want_y);
  EXPECT_EQ(dw, want_dw);
  EXPECT_EQ(dx, want_dx);

  std::vector<float> dw_only(dw.size());  // no dx: the first layer
  conv->backward(tx, tw, tdy, tensor_of(dw_only, {4, 3, 3, 3}), ops::Tensor());
  EXPECT_EQ(dw_only, want_dw);
}

TEST(HostBackendConvOps, ConvolutionsShareAWorkspaceSizedForTheLargest) {
  HostBackend backend;
  const ops::ConvGeometry small = geometry(2, 4, 3, 1, 1, 5, 5);
  const ops::ConvGeometry large = geometry(8, 4, 3, 1, 1, 12, 10);
  const ops::ConvGeometry pointwise = geometry(16, 4, 1, 1, 0, 12, 10);
  const auto bytes = [](const ops::ConvGeometry& g) {
    return std::int64_t(Conv2d(g).workspace_floats() * sizeof(float));
  };
  ASSERT_EQ(bytes(pointwise), 0);
  const auto a = backend.make_conv2d(small, 1, DType::fp32);
  EXPECT_EQ(backend.workspace_bytes(), bytes(small));
  const auto b = backend.make_conv2d(large, 1, DType::fp32);
  EXPECT_EQ(backend.workspace_bytes(), bytes(large));
  const auto c = backend.make_conv2d(small, 1, DType::fp32);
  const auto d = backend.make_conv2d(pointwise, 1, DType::fp32);
  EXPECT_EQ(backend.workspace_bytes(), bytes(large));

  // The small convolution made first still computes right on the grown workspace.
  std::vector<float> x = uniform_floats(2 * 5 * 5, 4), w = uniform_floats(4 * 2 * 9, 5);
  std::vector<float> y(4 * 5 * 5), want(y.size());
  a->forward(tensor_of(x, {1, 2, 5, 5}), tensor_of(w, {4, 2, 3, 3}), tensor_of(y, {1, 4, 5, 5}));
  const Conv2d reference(small);
  reference.forward(view4(x, 1, 2, 5, 5), view4(w, 4, 2, 3, 3), view4(want, 1, 4, 5, 5),
                    Vector("ws", reference.workspace_floats()));
  EXPECT_EQ(y, want);
}

TEST(HostBackendConvOps, StatefulOpsRefuseSixteenBitActivations) {
  HostBackend backend;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.make_conv2d(geometry(2, 2, 1, 1, 0, 4, 4), 1, DType::fp16); },
      "HostBackend::make_conv2d: the host computes in fp32 only, not fp16"));
  EXPECT_THROW(backend.make_batch_norm(1, 2, 4, 4, 1e-5f, nullptr, DType::bf16),
               std::invalid_argument);
  EXPECT_THROW(backend.make_max_pool(2, 2, 0, 1, 2, 4, 4, DType::fp16), std::invalid_argument);
  EXPECT_THROW(backend.make_attention(1, 1, 4, 2, DType::bf16), std::invalid_argument);
  EXPECT_THROW(backend.make_conv2d(geometry(0, 2, 1, 1, 0, 4, 4), 1, DType::fp32),
               std::invalid_argument);
}

TEST(HostBackendConvOps, BatchNormEqualsTheHostBatchNorm) {
  HostBackend backend;
  constexpr std::size_t n = 2, c = 3, h = 4, w = 5;
  constexpr float eps = 1e-3f;
  std::vector<float> x = uniform_floats(n * c * h * w, 6, -2.0f, 2.0f),
                     gamma = uniform_floats(c, 7);
  std::vector<float> beta = uniform_floats(c, 8), dy = uniform_floats(x.size(), 9);
  std::vector<float> y(x.size()), dx(x.size()), dgamma(c), dbeta(c);
  const auto bn = backend.make_batch_norm(n, c, h, w, eps, nullptr, DType::fp32);
  bn->forward(tensor_of(x, {n, c, h, w}), tensor_of(gamma, {c}), tensor_of(beta, {c}),
              tensor_of(y, {n, c, h, w}));
  bn->backward(tensor_of(x, {n, c, h, w}), tensor_of(gamma, {c}), tensor_of(dy, {n, c, h, w}),
               tensor_of(dgamma, {c}), tensor_of(dbeta, {c}), tensor_of(dx, {n, c, h, w}));

  BatchNorm2d reference(c, nullptr, eps);
  std::vector<float> want_y(x.size()), want_dx(x.size()), want_dgamma(c), want_dbeta(c);
  reference.forward(view4(x, n, c, h, w), Vector(gamma.data(), c), Vector(beta.data(), c),
                    view4(want_y, n, c, h, w));
  reference.backward(view4(x, n, c, h, w), Vector(gamma.data(), c), view4(dy, n, c, h, w),
                     Vector(want_dgamma.data(), c), Vector(want_dbeta.data(), c),
                     view4(want_dx, n, c, h, w));
  EXPECT_EQ(y, want_y);
  EXPECT_EQ(dx, want_dx);
  EXPECT_EQ(dgamma, want_dgamma);
  EXPECT_EQ(dbeta, want_dbeta);
  EXPECT_EQ(bn->state_bytes(), reference.state_bytes());
  EXPECT_EQ(bn->state_bytes(), std::int64_t((4 * c + 1) * sizeof(double)));
}

TEST(HostBackendConvOps, MaxPoolEqualsTheHostPoolAndCountsItsWinners) {
  HostBackend backend;
  constexpr std::size_t n = 2, c = 3, h = 9, w = 8;
  const std::size_t ho = std::size_t(MaxPool2d::out_size(h, 3, 2, 1));
  const std::size_t wo = std::size_t(MaxPool2d::out_size(w, 3, 2, 1));
  std::vector<float> x = uniform_floats(n * c * h * w, 10), y(n * c * ho * wo), dx(x.size());
  std::vector<float> dy = uniform_floats(y.size(), 11);
  const auto pool = backend.make_max_pool(3, 2, 1, n, c, h, w, DType::fp32);
  EXPECT_EQ(pool->state_bytes(), std::int64_t(n * c * ho * wo * sizeof(std::int32_t)));
  pool->forward(tensor_of(x, {n, c, h, w}),
                tensor_of(y, {n, c, std::int64_t(ho), std::int64_t(wo)}));
  pool->backward(tensor_of(dy, {n, c, std::int64_t(ho), std::int64_t(wo)}),
                 tensor_of(dx, {n, c, h, w}));
  MaxPool2d reference(3, 2, 1);
  std::vector<float> want_y(y.size()), want_dx(dx.size());
  reference.forward(view4(x, n, c, h, w), view4(want_y, n, c, ho, wo));
  reference.backward(view4(dy, n, c, ho, wo), view4(want_dx, n, c, h, w));
  EXPECT_EQ(y, want_y);
  EXPECT_EQ(dx, want_dx);
}

TEST(HostBackendConvOps, GlobalAveragePoolForwardAndBackward) {
  HostBackend backend;
  constexpr std::size_t n = 2, c = 3, hw = 6;
  std::vector<float> x = uniform_floats(n * c * hw, 12), y(n * c), dy = uniform_floats(n * c, 13);
  std::vector<float> dx(x.size(), 5.0f);
  backend.global_avg_pool_forward(tensor_of(x, {n, c, 2, 3}), tensor_of(y, {n, c}));
  backend.global_avg_pool_backward(tensor_of(dy, {n, c}), tensor_of(dx, {n, c, 2, 3}));
  std::vector<double> want_y(n * c), want_dx(x.size());
  for (std::size_t p = 0; p < n * c; ++p)
    for (std::size_t i = 0; i < hw; ++i) {
      want_y[p] += x[p * hw + i] / double{hw};
      want_dx[p * hw + i] = dy[p] / double{hw};
    }
  EXPECT_TRUE(all_near(doubles(y), want_y, 1e-6));
  EXPECT_TRUE(all_near(doubles(dx), want_dx, 1e-7));
}

}  // namespace
}  // namespace scaletune::kernels
