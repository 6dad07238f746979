// The CUDA backend refuses tensors its kernels and library calls would misread (another element
// type than the one they read and write a buffer in, or fewer elements than they touch) with
// std::invalid_argument before anything is queued, as the op layer's contract says, instead of
// reading or writing out of bounds on the device.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "tests/device/backend_test_support.hpp"
#include "tests/support/conv_cases.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DType;
using testing::TwinTensor;

class CudaBackendChecks : public testing::BackendPairTest {
 protected:
  /// A zero CUDA tensor of `shape` and `dtype` (its host twin unused).
  ops::Tensor make(const testing::Shape& shape, DType dtype = DType::fp32) {
    m_keep.push_back(filled_twin(shape, 0.0f, dtype));
    return m_keep.back().cuda;
  }

 private:
  std::vector<TwinTensor> m_keep;
};

TEST_F(CudaBackendChecks, ElementwiseOpsRefuseAnOutputOfAnotherType) {
  const ops::Tensor x = make({4, 8}), y16 = make({4, 8}, DType::bf16), y = make({4, 8});
  EXPECT_THROW(cuda().relu_forward(x, y16), std::invalid_argument);
  EXPECT_THROW(cuda().relu_backward(x, y, y16), std::invalid_argument);
  EXPECT_THROW(cuda().gelu_forward(x, y16), std::invalid_argument);
  EXPECT_THROW(cuda().gelu_backward(x, y16, y), std::invalid_argument);
  EXPECT_THROW(cuda().dropout_forward(x, ops::DropoutMask{.p = 0.5f}, y16), std::invalid_argument);
  EXPECT_THROW(cuda().dropout_backward(x, ops::DropoutMask{.p = 0.5f}, y16), std::invalid_argument);
}

TEST_F(CudaBackendChecks, LossesRefuseMismatchedGradientsLabelsAndLoss) {
  const ops::Tensor logits = make({6, 5}), dlogits16 = make({6, 5}, DType::fp16);
  const ops::Tensor labels = make({6}, DType::int32), few_labels = make({5}, DType::int32);
  const ops::Tensor loss = make({1}, DType::fp64), loss32 = make({1});
  EXPECT_THROW(cuda().softmax_cross_entropy(logits, labels, 1, 1, dlogits16, loss),
               std::invalid_argument);
  EXPECT_THROW(cuda().softmax_cross_entropy(logits, few_labels, 1, 1, logits, loss),
               std::invalid_argument);
  EXPECT_THROW(cuda().softmax_cross_entropy(logits, labels, 1, 1, logits, loss32),
               std::invalid_argument);
  const ops::Tensor x = make({6, 1}), targets = make({6}), few = make({4});
  EXPECT_THROW(cuda().bce_with_logits(x, few, 1, 1, x, loss), std::invalid_argument);
  EXPECT_THROW(cuda().bce_with_logits(logits, make({6}), 1, 1, logits, loss),
               std::invalid_argument);  // [N, 5] is not one logit per sample
  EXPECT_NO_THROW(cuda().bce_with_logits(x, targets, 1, 1, x, loss));
}

TEST_F(CudaBackendChecks, DenseOpsRefuseMisshapenParametersAndOutputs) {
  const ops::Tensor x = make({3, 8}), w = make({5, 8}), y = make({3, 5});
  EXPECT_THROW(cuda().linear_forward(x, w, make({4}), y), std::invalid_argument);
  EXPECT_THROW(cuda().linear_backward(x, w, y, make({5, 8}), make({6}), ops::Tensor(),
                                      ops::GradMode::overwrite),
               std::invalid_argument);
  const ops::Tensor stats = make({3});
  EXPECT_THROW(cuda().layer_norm_forward(x, make({8}), make({8}), make({3, 8}, DType::bf16), stats,
                                         stats, 1e-5f),
               std::invalid_argument);
  EXPECT_THROW(cuda().layer_norm_forward(x, make({7}), make({8}), x, stats, stats, 1e-5f),
               std::invalid_argument);
  const ops::Tensor rows = make({2 * 4, 12});
  EXPECT_THROW(cuda().heads_from_rows(rows, 0, make({2, 3, 4, 4}, DType::bf16)),
               std::invalid_argument);
  EXPECT_THROW(cuda().heads_from_rows(rows, 0, make({3, 3, 4, 4})), std::invalid_argument);
  const ops::Tensor z = make({2, 3, 4});
  EXPECT_THROW(cuda().interaction_forward(z, make({2, 7}, DType::bf16)), std::invalid_argument);
  EXPECT_THROW(cuda().interaction_backward(z, make({2, 6}), make({2, 3, 4})),
               std::invalid_argument);
}

TEST_F(CudaBackendChecks, TokenEmbeddingAndUpdatesRefuseMisshapenTensors) {
  const std::int32_t ids[] = {0, 1, 2, 3};
  TwinTensor tokens = int_twin<std::int32_t>({4}, ids);
  const ops::Tensor wte = make({5, 6}), wpe = make({2, 6});
  EXPECT_THROW(cuda().token_embedding_forward(wte, wpe, tokens.cuda, make({3, 6})),
               std::invalid_argument);
  EXPECT_THROW(cuda().token_embedding_forward(make({5, 7}), wpe, tokens.cuda, make({4, 6})),
               std::invalid_argument);
  EXPECT_THROW(cuda().token_embedding_backward(make({4, 5}), tokens.cuda, wte, wpe),
               std::invalid_argument);
  const ops::Tensor p = make({8});
  ops::MasterUpdate update;
  update.found_nonfinite = make({1});  // fp32, not int32
  EXPECT_THROW(cuda().sgd_momentum(p, p, p, ops::SgdOptions{}, update), std::invalid_argument);
}

TEST_F(CudaBackendChecks, ConvolutionalOpsRefuseTensorsOfAnotherShapeOrType) {
  const auto conv =
      cuda().make_conv2d(testing_support::geometry(3, 4, 3, 1, 1, 5, 5), 2, DType::fp32);
  EXPECT_THROW(conv->forward(make({2, 3, 5, 4}), make({4, 3, 3, 3}), make({2, 4, 5, 5})),
               std::invalid_argument);
  EXPECT_THROW(
      conv->forward(make({2, 3, 5, 5}), make({4, 3, 3, 3}, DType::fp16), make({2, 4, 5, 5})),
      std::invalid_argument);
  const auto bn = cuda().make_batch_norm(2, 3, 4, 4, 1e-5f, nullptr, DType::fp32);
  EXPECT_THROW(
      bn->forward(make({2, 3, 4, 4}), make({3}, DType::bf16), make({3}), make({2, 3, 4, 4})),
      std::invalid_argument);
  EXPECT_THROW(bn->forward(make({2, 3, 4, 4}), make({3}), make({3}), make({2, 3, 4, 3})),
               std::invalid_argument);
  const auto pool = cuda().make_max_pool(2, 2, 0, 1, 2, 4, 4, DType::fp32);
  EXPECT_THROW(pool->forward(make({1, 2, 4, 4}), make({1, 2, 2, 2}, DType::bf16)),
               std::invalid_argument);
  EXPECT_THROW(cuda().global_avg_pool_forward(make({2, 3, 4, 4}), make({2, 3}, DType::fp16)),
               std::invalid_argument);
  EXPECT_THROW(cuda().global_avg_pool_backward(make({2, 2}), make({2, 3, 4, 4})),
               std::invalid_argument);
}

TEST_F(CudaBackendChecks, AttentionAndEmbeddingsRefuseMisshapenTensors) {
  const auto attention = cuda().make_attention(2, 2, 4, 8, DType::fp32);
  const ops::Tensor q = make({2, 2, 4, 8});
  EXPECT_THROW(attention->forward(make({2, 2, 4, 6}), q, q, q), std::invalid_argument);
  EXPECT_THROW(attention->forward(q, q, q, make({2, 2, 4, 8}, DType::bf16)), std::invalid_argument);
  const auto bag = cuda().make_embedding_bag(10, 4, 2, 4, ops::Pooling::kSum);
  const std::int64_t ids[] = {1, 2, 3, 4}, offsets[] = {0, 2, 4};
  TwinTensor indices = int_twin<std::int64_t>({4}, ids);
  TwinTensor bounds = int_twin<std::int64_t>({3}, offsets);
  EXPECT_THROW(bag->forward(make({10, 4}), indices.cuda, bounds.cuda, make({2, 3})),
               std::invalid_argument);
  EXPECT_THROW(bag->forward(make({9, 4}), indices.cuda, bounds.cuda, make({2, 4})),
               std::invalid_argument);
  TwinTensor rows = int_twin<std::int64_t>({2}, std::span(ids, 2));
  const ops::SparseRows narrow{
      .rows = rows.cuda, .values = make({2, 3}), .count = 2, .count_on_device = {}};
  EXPECT_THROW(cuda().sparse_sgd(make({10, 4}), narrow, 0.1f), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
