// The CUDA backend's causal attention (strided-batched cuBLAS GEMMs around the causal softmax
// kernels) against the host backend's on the same q, k, v and dout: out, dq, dk and dv for one
// token, rows shorter and longer than a warp, several heads, a batch below max_batch, and the
// same op run twice (probabilities of the latest forward). 16-bit attention keeps its scores
// and probabilities in 16 bits, so its tolerance allows a few 16-bit roundings.
#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>

#include "tests/device/backend_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DType;
using testing::Shape;
using testing::TwinTensor;
using testing::TypedBackendPairTest;

class CudaBackendAttention : public TypedBackendPairTest {
 protected:
  /// Tolerance of out (scores, probabilities and out rounded) and of the gradients (two more
  /// roundings); fp32: sums of up to seq_len products in another order.
  double out_tol() const { return dtype() == DType::fp32 ? 3e-5 : tol(3); }
  double grad_tol() const { return dtype() == DType::fp32 ? 3e-5 : tol(5); }

  /// Runs forward and backward of ops made for `max_batch` on a batch of `batch` and compares.
  void check(int max_batch, int batch, int heads, int seq, int head_dim, unsigned seed) {
    const std::string what = "batch " + std::to_string(batch) + "/" + std::to_string(max_batch) +
                             " heads " + std::to_string(heads) + " seq " + std::to_string(seq) +
                             " head_dim " + std::to_string(head_dim);
    const auto host_op = host().make_attention(max_batch, heads, seq, head_dim, DType::fp32);
    const auto cuda_op = cuda().make_attention(max_batch, heads, seq, head_dim, dtype());
    const Shape shape{batch, heads, seq, head_dim};
    for (unsigned pass = 0; pass < 2; ++pass) {  // the second forward replaces the first
      const unsigned s = seed + 10 * pass;
      TwinTensor q = random_twin(shape, s, dtype(), -2.0f, 2.0f);
      TwinTensor k = random_twin(shape, s + 1, dtype(), -2.0f, 2.0f);
      TwinTensor v = random_twin(shape, s + 2, dtype());
      TwinTensor out = filled_twin(shape, 7.0f, dtype());
      host_op->forward(q.host, k.host, v.host, out.host);
      cuda_op->forward(q.cuda, k.cuda, v.cuda, out.cuda);
      expect_twin_close(out, out_tol(), "attention out, " + what);
      TwinTensor dout = random_twin(shape, s + 3, dtype());
      TwinTensor dq = filled_twin(shape, 7.0f, dtype());
      TwinTensor dk = filled_twin(shape, 7.0f, dtype());
      TwinTensor dv = filled_twin(shape, 7.0f, dtype());
      host_op->backward(q.host, k.host, v.host, dout.host, dq.host, dk.host, dv.host);
      cuda_op->backward(q.cuda, k.cuda, v.cuda, dout.cuda, dq.cuda, dk.cuda, dv.cuda);
      expect_twin_close(dv, grad_tol(), "attention dv, " + what);
      expect_twin_close(dq, grad_tol(), "attention dq, " + what);
      expect_twin_close(dk, grad_tol(), "attention dk, " + what);
    }
  }
};

// TransformerBlock::activation_bytes counts 2 e S^2 B_max heads for a CUDA block's attention.
TEST_P(CudaBackendAttention, HoldsTheTwoProbabilityBuffersTheMemoryModelCounts) {
  const auto op = cuda().make_attention(3, 4, 16, 8, dtype());
  EXPECT_EQ(op->workspace_bytes(), std::int64_t{2} * 3 * 4 * 16 * 16 *
                                       static_cast<std::int64_t>(core::dtype_bytes(dtype())));
}

TEST_P(CudaBackendAttention, OneTokenMatchesHost) {
  check(2, 2, 3, 1, 8, 131);
}

TEST_P(CudaBackendAttention, ShortAndLongRowsMatchHost) {
  check(2, 2, 2, 17, 8, 132);
  check(1, 1, 4, 65, 16, 133);  // rows longer than a warp
}

TEST_P(CudaBackendAttention, BatchBelowMaxBatchMatchesHost) {
  check(4, 3, 2, 33, 12, 134);
  check(4, 1, 2, 33, 12, 135);
}

TEST_P(CudaBackendAttention, RefusesABatchAboveMaxBatch) {
  const auto op = cuda().make_attention(2, 2, 8, 4, dtype());
  TwinTensor q = random_twin({3, 2, 8, 4}, 136, dtype());
  TwinTensor out = filled_twin({3, 2, 8, 4}, 0.0f, dtype());
  EXPECT_THROW(op->forward(q.cuda, q.cuda, q.cuda, out.cuda), std::exception);
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendAttention,
                         ::testing::ValuesIn(testing::kActivationTypes), testing::type_param_name);

}  // namespace
}  // namespace scaletune::kernels::cuda
