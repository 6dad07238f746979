// The CUDA backend's convolutional-network ops against the host backend on the same inputs:
// convolution (cuDNN) forward and backward with and without dx for ResNet-50's shapes; batch
// normalisation (cuDNN) forward and backward, dx over dy, and synchronised over a one-rank
// device communicator (two all-reduces of 2C sums a step); max pooling (cuDNN) with padding on
// negative inputs, and ties; global average pooling. fp32, fp16 and bf16 activations (16-bit
// inputs rounded on the host first).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/device/backend_test_support.hpp"
#include "tests/device/single_rank_communicator.hpp"
#include "tests/support/conv_cases.hpp"

namespace scaletune::kernels::cuda {
namespace {

using device::testing::SingleRankCommunicator;
using testing::DType;
using testing::Shape;
using testing::TwinTensor;
using testing::TypedBackendPairTest;
using testing_support::geometry;

class CudaBackendConvOps : public TypedBackendPairTest {
 protected:
  /// Tolerance of a sum of a few hundred products (conv outputs and gradients); fp32: cuDNN may
  /// pick a Winograd or FFT algorithm, whose rounding exceeds a direct sum's.
  double sum_tol() const { return dtype() == DType::fp32 ? 1e-4 : tol(); }
};

/// Shape of an [N, C, H, W] activation.
Shape nchw(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
  return {n, c, h, w};
}

TEST_P(CudaBackendConvOps, Conv2dForwardAndBackwardMatchHost) {
  struct ConvCase {
    const char* name;
    ops::ConvGeometry g;
    int batch;
  };
  const ConvCase cases[] = {
      {"3x3 stride 1 pad 1", geometry(5, 7, 3, 1, 1, 9, 9), 2},
      {"3x3 stride 2 pad 1", geometry(8, 6, 3, 2, 1, 11, 11), 3},
      {"1x1 stride 2", geometry(16, 9, 1, 2, 0, 14, 14), 2},
      {"7x7 stride 2 pad 3 stem", geometry(3, 8, 7, 2, 3, 20, 20), 3},
      {"1x1 one sample", geometry(4, 4, 1, 1, 0, 5, 3), 1},
  };
  for (const ConvCase& c : cases) {
    const ops::ConvGeometry& g = c.g;
    const Shape x_shape = nchw(c.batch, g.in_channels, g.in_h, g.in_w);
    const Shape y_shape = nchw(c.batch, g.out_channels, g.out_h(), g.out_w());
    const Shape w_shape = nchw(g.out_channels, g.in_channels, g.kernel, g.kernel);
    const auto host_conv = host().make_conv2d(g, c.batch, DType::fp32);
    const auto cuda_conv = cuda().make_conv2d(g, c.batch, dtype());
    TwinTensor x = random_twin(x_shape, 91, dtype());
    TwinTensor w = random_twin(w_shape, 92, dtype());
    TwinTensor y = filled_twin(y_shape, 7.0f, dtype());
    host_conv->forward(x.host, w.host, y.host);
    cuda_conv->forward(x.cuda, w.cuda, y.cuda);
    expect_twin_close(y, sum_tol(), std::string("conv forward, ") + c.name);
    TwinTensor dy = random_twin(y_shape, 93, dtype());
    TwinTensor dw = filled_twin(w_shape, 7.0f, dtype());
    TwinTensor dx = filled_twin(x_shape, 7.0f, dtype());
    host_conv->backward(x.host, w.host, dy.host, dw.host, dx.host);
    cuda_conv->backward(x.cuda, w.cuda, dy.cuda, dw.cuda, dx.cuda);
    expect_twin_close(dw, sum_tol(), std::string("conv dw, ") + c.name);
    expect_twin_close(dx, sum_tol(), std::string("conv dx, ") + c.name);
    TwinTensor dw_only = filled_twin(w_shape, 7.0f, dtype());
    host_conv->backward(x.host, w.host, dy.host, dw_only.host, ops::Tensor());
    cuda_conv->backward(x.cuda, w.cuda, dy.cuda, dw_only.cuda, ops::Tensor());
    expect_twin_close(dw_only, sum_tol(), std::string("conv dw without dx, ") + c.name);
  }
}

/// Batch norm of `sync` (null: local) on both backends, forward and backward, dx separate or
/// over dy; compares y, dgamma, dbeta and dx.
class CudaBackendBatchNorm : public CudaBackendConvOps {
 protected:
  void check(const Shape& shape, core::Communicator* sync, bool dx_over_dy) {
    constexpr float kEps = 1e-5f;
    const int n = int(shape[0]), c = int(shape[1]), h = int(shape[2]), w = int(shape[3]);
    const std::string what = "[" + std::to_string(n) + ", " + std::to_string(c) + ", " +
                             std::to_string(h) + ", " + std::to_string(w) + "]" +
                             (sync != nullptr ? " synchronised" : "") +
                             (dx_over_dy ? ", dx over dy" : "");
    const auto host_bn = host().make_batch_norm(n, c, h, w, kEps, nullptr, DType::fp32);
    const auto cuda_bn = cuda().make_batch_norm(n, c, h, w, kEps, sync, dtype());
    // Channels with a mean well away from 0, as conv outputs have.
    TwinTensor x = random_twin(shape, 101, dtype(), 1.0f, 3.0f);
    TwinTensor gamma = random_twin({c}, 102, DType::fp32, 0.5f, 1.5f);
    TwinTensor beta = random_twin({c}, 103);
    TwinTensor y = filled_twin(shape, 7.0f, dtype());
    host_bn->forward(x.host, gamma.host, beta.host, y.host);
    cuda_bn->forward(x.cuda, gamma.cuda, beta.cuda, y.cuda);
    expect_twin_close(y, dtype() == DType::fp32 ? 1e-4 : tol(), "batch norm y, " + what);
    TwinTensor dy = random_twin(shape, 104, dtype());
    TwinTensor dgamma = filled_twin({c}, 7.0f);
    TwinTensor dbeta = filled_twin({c}, 7.0f);
    TwinTensor dx_separate = filled_twin(shape, 7.0f, dtype());
    TwinTensor& dx = dx_over_dy ? dy : dx_separate;
    host_bn->backward(x.host, gamma.host, dy.host, dgamma.host, dbeta.host, dx.host);
    cuda_bn->backward(x.cuda, gamma.cuda, dy.cuda, dgamma.cuda, dbeta.cuda, dx.cuda);
    const double param_tol = dtype() == DType::fp32 ? 1e-4 : 1e-3;
    expect_twin_close(dgamma, param_tol, "batch norm dgamma, " + what);
    expect_twin_close(dbeta, param_tol, "batch norm dbeta, " + what);
    expect_twin_close(dx, dtype() == DType::fp32 ? 1e-4 : tol(2), "batch norm dx, " + what);
  }
};

const Shape kBatchNormShapes[] = {{2, 3, 5, 5}, {8, 16, 14, 14}, {3, 4, 1, 1}};

TEST_P(CudaBackendBatchNorm, LocalMatchesHost) {
  for (const Shape& shape : kBatchNormShapes) check(shape, nullptr, false);
}

TEST_P(CudaBackendBatchNorm, LocalWithDxOverDyMatchesHost) {
  for (const Shape& shape : kBatchNormShapes) check(shape, nullptr, true);
}

TEST_P(CudaBackendBatchNorm, SynchronisedOverOneRankMatchesLocalHost) {
  for (const Shape& shape : kBatchNormShapes)
    for (const bool over : {false, true}) {
      SingleRankCommunicator comm(context());
      check(shape, &comm, over);
      // One all-reduce of the 2C sums in forward and one in backward.
      EXPECT_EQ(comm.all_reduces(), 2);
      EXPECT_EQ(comm.all_reduced_elements(), 2 * 2 * std::size_t(shape[1]));
    }
}

TEST_P(CudaBackendBatchNorm, SynchronisedRefusesAHostMemoryCommunicator) {
  SingleRankCommunicator host_memory;
  EXPECT_THROW(cuda().make_batch_norm(2, 3, 4, 4, 1e-5f, &host_memory, dtype()),
               std::invalid_argument);
}

/// Every (n, c) plane of [N, C, H, W] holds a shuffled run of distinct integers centred on 0
/// (exact in fp16 and bf16 for planes up to 256 values), so a window has one maximum, and
/// windows at the border see only negative values.
std::vector<float> distinct_planes(const Shape& shape, unsigned seed) {
  const std::size_t plane = std::size_t(shape[2] * shape[3]);
  std::vector<float> values;
  std::mt19937 gen(seed);
  for (std::int64_t p = 0; p < shape[0] * shape[1]; ++p) {
    std::vector<float> run(plane);
    std::iota(run.begin(), run.end(), -float(plane / 2));
    std::shuffle(run.begin(), run.end(), gen);
    values.insert(values.end(), run.begin(), run.end());
  }
  return values;
}

class CudaBackendPooling : public CudaBackendConvOps {};

TEST_P(CudaBackendPooling, MaxPoolForwardAndBackwardMatchHost) {
  struct PoolCase {
    int kernel, stride, pad;
    Shape x;
  };
  const PoolCase cases[] = {{3, 2, 1, {2, 3, 15, 15}},
                            {2, 2, 0, {1, 2, 8, 8}},
                            {3, 1, 1, {3, 5, 7, 9}},
                            {3, 2, 1, {1, 1, 1, 1}}};
  for (const PoolCase& p : cases) {
    const int n = int(p.x[0]), c = int(p.x[1]), h = int(p.x[2]), w = int(p.x[3]);
    const std::string what = "kernel " + std::to_string(p.kernel) + " stride " +
                             std::to_string(p.stride) + " pad " + std::to_string(p.pad) + " on " +
                             std::to_string(h) + "x" + std::to_string(w);
    const std::int64_t ho = (h + 2 * p.pad - p.kernel) / p.stride + 1;
    const std::int64_t wo = (w + 2 * p.pad - p.kernel) / p.stride + 1;
    const auto host_pool = host().make_max_pool(p.kernel, p.stride, p.pad, n, c, h, w, DType::fp32);
    const auto cuda_pool = cuda().make_max_pool(p.kernel, p.stride, p.pad, n, c, h, w, dtype());
    TwinTensor x = twin(p.x, distinct_planes(p.x, 111), dtype());
    TwinTensor y = filled_twin({n, c, ho, wo}, 7.0f, dtype());
    host_pool->forward(x.host, y.host);
    cuda_pool->forward(x.cuda, y.cuda);
    expect_twin_equal(y, "max pool forward, " + what);
    TwinTensor dy = random_twin({n, c, ho, wo}, 112, dtype());
    TwinTensor dx = filled_twin(p.x, 7.0f, dtype());
    host_pool->backward(dy.host, dx.host);
    cuda_pool->backward(dy.cuda, dx.cuda);
    // Overlapping windows add several dy at one winner: one rounding per addition in 16 bits.
    expect_twin_close(dx, tol(2), "max pool backward, " + what);
  }
}

TEST_P(CudaBackendPooling, MaxPoolTiesGoToTheFirstMaximum) {
  // All-equal windows (as after a ReLU): the op layer gives each window's gradient to its
  // first element in row-major window order, never to the padding.
  const Shape shape{1, 2, 6, 6};
  const auto host_pool = host().make_max_pool(3, 2, 1, 1, 2, 6, 6, DType::fp32);
  const auto cuda_pool = cuda().make_max_pool(3, 2, 1, 1, 2, 6, 6, dtype());
  TwinTensor x = filled_twin(shape, 0.0f, dtype());
  TwinTensor y = filled_twin({1, 2, 3, 3}, 7.0f, dtype());
  host_pool->forward(x.host, y.host);
  cuda_pool->forward(x.cuda, y.cuda);
  expect_twin_equal(y, "max pool of zeros");
  TwinTensor dy = random_twin({1, 2, 3, 3}, 113, dtype(), 1.0f, 2.0f);
  TwinTensor dx = filled_twin(shape, 7.0f, dtype());
  host_pool->backward(dy.host, dx.host);
  cuda_pool->backward(dy.cuda, dx.cuda);
  expect_twin_equal(dx, "max pool backward of ties");
}

TEST_P(CudaBackendPooling, GlobalAvgPoolForwardAndBackwardMatchHost) {
  for (const Shape& shape : {Shape{2, 5, 7, 7}, Shape{1, 3, 1, 1}, Shape{3, 64, 13, 13}}) {
    TwinTensor x = random_twin(shape, 121, dtype());
    TwinTensor y = filled_twin({shape[0], shape[1]}, 7.0f, dtype());
    host().global_avg_pool_forward(x.host, y.host);
    cuda().global_avg_pool_forward(x.cuda, y.cuda);
    expect_twin_close(y, tol(), "global avg pool forward");
    TwinTensor dy = random_twin({shape[0], shape[1]}, 122, dtype());
    TwinTensor dx = filled_twin(shape, 7.0f, dtype());
    host().global_avg_pool_backward(dy.host, dx.host);
    cuda().global_avg_pool_backward(dy.cuda, dx.cuda);
    expect_twin_close(dx, tol(), "global avg pool backward");
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendConvOps, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);
INSTANTIATE_TEST_SUITE_P(Types, CudaBackendBatchNorm,
                         ::testing::ValuesIn(testing::kActivationTypes), testing::type_param_name);
INSTANTIATE_TEST_SUITE_P(Types, CudaBackendPooling, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

}  // namespace
}  // namespace scaletune::kernels::cuda
