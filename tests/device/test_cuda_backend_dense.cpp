// The CUDA backend's dense ops against the host backend on the same inputs: gemm in its four
// transpose forms, plain and batched, fp32, fp16 and bf16 operands with fp32 and 16-bit
// results, alpha and beta (beta 0 overwrites a NaN-filled c); linear forward and backward
// (overwrite and accumulate, no dx); layer norm forward and backward (dx over dy); the
// attention layouts (bit for bit, other columns untouched); GPT-2's token embedding forward and
// backward (repeated tokens); DLRM's dot interaction forward and backward. Odd sizes, one row,
// rows longer than a block. 16-bit inputs are rounded on the host first.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "tests/device/backend_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::BackendPairTest;
using testing::DType;
using testing::random_values;
using testing::Shape;
using testing::tolerance;
using testing::TwinTensor;
using testing::TypedBackendPairTest;

/// Tolerance of an fp32 result of GEMMs of up to a few hundred terms: fp32 FMA on both sides in
/// different orders (fp32 operands), or tensor-core fp32 accumulation (16-bit operands, whose
/// products are exact in fp32).
double fp32_sum_tolerance(DType operands) {
  return operands == DType::fp32 ? 3e-5 : 1e-4;
}

/// Tolerance of a result in `out` from operands in `in`.
double result_tolerance(DType in, DType out) {
  return out == DType::fp32 ? fp32_sum_tolerance(in) : tolerance(out);
}

/// One GEMM case: sizes, transposes and batch (0: rank-2 operands).
struct GemmCase {
  std::int64_t m, n, k;
  bool trans_a, trans_b;
  std::int64_t batch;
};

/// [batch, rows, cols] or [rows, cols].
Shape matrix(std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  return batch == 0 ? Shape{rows, cols} : Shape{batch, rows, cols};
}

/// GEMM operands of one element type and results of another: (operands, result).
class CudaBackendGemm : public BackendPairTest,
                        public ::testing::WithParamInterface<std::tuple<DType, DType>> {
 protected:
  void SetUp() override {
    BackendPairTest::SetUp();
    if (IsSkipped()) return;
    if (!cuda().computes_in(std::get<0>(GetParam())))
      GTEST_SKIP() << "the device does not compute in " << core::dtype_key(std::get<0>(GetParam()));
  }

  /// Runs c = alpha op(a) op(b) + beta c on both backends and compares c.
  void check(const GemmCase& g, float alpha, float beta) {
    const auto [in, out] = GetParam();
    const std::string what = "gemm m " + std::to_string(g.m) + " n " + std::to_string(g.n) + " k " +
                             std::to_string(g.k) + (g.trans_a ? " A^T" : "") +
                             (g.trans_b ? " B^T" : "") + " batch " + std::to_string(g.batch) +
                             " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
    TwinTensor a =
        random_twin(g.trans_a ? matrix(g.batch, g.k, g.m) : matrix(g.batch, g.m, g.k), 31, in);
    TwinTensor b =
        random_twin(g.trans_b ? matrix(g.batch, g.n, g.k) : matrix(g.batch, g.k, g.n), 32, in);
    TwinTensor c = random_twin(matrix(g.batch, g.m, g.n), 33, out);
    if (beta == 0.0f)  // overwritten: what c held must not matter
      cuda().fill(c.cuda, std::numeric_limits<float>::quiet_NaN());
    host().gemm(g.trans_a, g.trans_b, alpha, a.host, b.host, beta, c.host);
    cuda().gemm(g.trans_a, g.trans_b, alpha, a.cuda, b.cuda, beta, c.cuda);
    expect_twin_close(c, result_tolerance(in, out), what);
  }
};

TEST_P(CudaBackendGemm, FourTransposeFormsMatchHost) {
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      check({33, 17, 70, ta, tb, 0}, 1.0f, 0.0f);
      check({33, 17, 70, ta, tb, 0}, 0.75f, 0.5f);
      check({1, 129, 300, ta, tb, 0}, 1.0f, 1.0f);  // one row
      check({65, 1, 9, ta, tb, 0}, -2.0f, 0.0f);    // one column
    }
}

TEST_P(CudaBackendGemm, BatchedFormsMatchHost) {
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      check({17, 33, 21, ta, tb, 3}, 1.0f, 0.0f);
      check({17, 33, 21, ta, tb, 5}, 0.125f, 1.0f);
      check({64, 64, 32, ta, tb, 1}, 1.0f, 0.0f);  // a batch of one
    }
}

TEST_P(CudaBackendGemm, RejectsShapesThatDoNotMultiply) {
  const auto [in, out] = GetParam();
  TwinTensor a = random_twin({4, 5}, 1, in);
  TwinTensor b = random_twin({6, 3}, 2, in);
  TwinTensor c = random_twin({4, 3}, 3, out);
  EXPECT_THROW(cuda().gemm(false, false, 1.0f, a.cuda, b.cuda, 0.0f, c.cuda),
               std::invalid_argument);
  TwinTensor a3 = random_twin({2, 4, 6}, 4, in);
  TwinTensor c3 = random_twin({3, 4, 3}, 5, out);
  TwinTensor b3 = random_twin({3, 6, 3}, 6, in);
  EXPECT_THROW(cuda().gemm(false, false, 1.0f, a3.cuda, b3.cuda, 0.0f, c3.cuda),
               std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendGemm,
                         ::testing::Values(std::tuple{DType::fp32, DType::fp32},
                                           std::tuple{DType::fp16, DType::fp32},
                                           std::tuple{DType::fp16, DType::fp16},
                                           std::tuple{DType::bf16, DType::fp32},
                                           std::tuple{DType::bf16, DType::bf16}),
                         [](const ::testing::TestParamInfo<std::tuple<DType, DType>>& param_info) {
                           return std::string(core::dtype_key(std::get<0>(param_info.param))) +
                                  "_into_" +
                                  std::string(core::dtype_key(std::get<1>(param_info.param)));
                         });

class CudaBackendDense : public TypedBackendPairTest {};

TEST_P(CudaBackendDense, LinearForwardMatchesHost) {
  for (const std::int64_t rows : {1, 37, 300}) {
    TwinTensor x = random_twin({rows, 129}, 41, dtype());
    TwinTensor w = random_twin({65, 129}, 42, dtype());
    TwinTensor b = random_twin({65}, 43);
    TwinTensor y = filled_twin({rows, 65}, 7.0f, dtype());
    host().linear_forward(x.host, w.host, b.host, y.host);
    cuda().linear_forward(x.cuda, w.cuda, b.cuda, y.cuda);
    expect_twin_close(y, result_tolerance(dtype(), dtype()), "linear forward");
  }
}

TEST_P(CudaBackendDense, LinearBackwardOverwritesOrAccumulatesAsTheHost) {
  for (const ops::GradMode mode : {ops::GradMode::overwrite, ops::GradMode::accumulate})
    for (const std::int64_t rows : {1, 37, 300}) {
      const std::string what =
          std::string(mode == ops::GradMode::overwrite ? "overwrite" : "accumulate") + ", rows " +
          std::to_string(rows);
      TwinTensor x = random_twin({rows, 129}, 44, dtype());
      TwinTensor w = random_twin({65, 129}, 45, dtype());
      TwinTensor dy = random_twin({rows, 65}, 46, dtype());
      TwinTensor dw = random_twin({65, 129}, 47);
      TwinTensor db = random_twin({65}, 48);
      TwinTensor dx = filled_twin({rows, 129}, 7.0f, dtype());
      host().linear_backward(x.host, w.host, dy.host, dw.host, db.host, dx.host, mode);
      cuda().linear_backward(x.cuda, w.cuda, dy.cuda, dw.cuda, db.cuda, dx.cuda, mode);
      expect_twin_close(dw, fp32_sum_tolerance(dtype()), "linear dw, " + what);
      expect_twin_close(db, fp32_sum_tolerance(dtype()), "linear db, " + what);
      expect_twin_close(dx, result_tolerance(dtype(), dtype()), "linear dx, " + what);
      // No input gradient (the first layer): dw and db only.
      host().linear_backward(x.host, w.host, dy.host, dw.host, db.host, ops::Tensor(), mode);
      cuda().linear_backward(x.cuda, w.cuda, dy.cuda, dw.cuda, db.cuda, ops::Tensor(), mode);
      expect_twin_close(dw, fp32_sum_tolerance(dtype()), "linear dw without dx, " + what);
      expect_twin_close(db, fp32_sum_tolerance(dtype()), "linear db without dx, " + what);
    }
}

TEST_P(CudaBackendDense, LayerNormForwardAndBackwardMatchHost) {
  constexpr float kEps = 1e-5f;
  for (const std::int64_t rows : {1, 37})
    for (const std::int64_t cols : {7, 769, 5000}) {
      const std::string what = "rows " + std::to_string(rows) + " cols " + std::to_string(cols);
      TwinTensor x = random_twin({rows, cols}, 51, dtype(), -2.0f, 3.0f);
      TwinTensor gamma = random_twin({cols}, 52, DType::fp32, 0.5f, 1.5f);
      TwinTensor beta = random_twin({cols}, 53);
      TwinTensor y = filled_twin({rows, cols}, 7.0f, dtype());
      TwinTensor mean = filled_twin({rows}, 7.0f);
      TwinTensor rstd = filled_twin({rows}, 7.0f);
      host().layer_norm_forward(x.host, gamma.host, beta.host, y.host, mean.host, rstd.host, kEps);
      cuda().layer_norm_forward(x.cuda, gamma.cuda, beta.cuda, y.cuda, mean.cuda, rstd.cuda, kEps);
      expect_twin_close(y, tol(), "layer norm y, " + what);
      expect_twin_close(mean, 1e-5, "layer norm mean, " + what);
      expect_twin_close(rstd, 1e-4, "layer norm rstd, " + what);
      TwinTensor dy = random_twin({rows, cols}, 54, dtype());
      TwinTensor dgamma = filled_twin({cols}, 7.0f);
      TwinTensor dbeta = filled_twin({cols}, 7.0f);
      // dx over dy (allowed): the host's too.
      host().layer_norm_backward(x.host, gamma.host, dy.host, mean.host, rstd.host, dy.host,
                                 dgamma.host, dbeta.host);
      cuda().layer_norm_backward(x.cuda, gamma.cuda, dy.cuda, mean.cuda, rstd.cuda, dy.cuda,
                                 dgamma.cuda, dbeta.cuda);
      expect_twin_close(dy, tol(2), "layer norm dx, " + what);
      expect_twin_close(dgamma, 1e-4, "layer norm dgamma, " + what);
      expect_twin_close(dbeta, 1e-5, "layer norm dbeta, " + what);
    }
}

TEST_P(CudaBackendDense, HeadLayoutsAreExactCopies) {
  constexpr std::int64_t kBatch = 3, kHeads = 4, kSeq = 17, kHeadDim = 8;
  constexpr std::int64_t kWidth = 3 * kHeads * kHeadDim + 5;  // qkv rows and 5 other columns
  TwinTensor rows = random_twin({kBatch * kSeq, kWidth}, 61, dtype());
  for (const std::int64_t col :
       {std::int64_t{0}, kHeads * kHeadDim + 1, kWidth - kHeads * kHeadDim}) {
    TwinTensor heads = filled_twin({kBatch, kHeads, kSeq, kHeadDim}, 7.0f, dtype());
    host().heads_from_rows(rows.host, col, heads.host);
    cuda().heads_from_rows(rows.cuda, col, heads.cuda);
    expect_twin_equal(heads, "heads_from_rows col " + std::to_string(col));
    TwinTensor merged = filled_twin({kBatch * kSeq, kWidth}, 7.0f, dtype());
    host().rows_from_heads(heads.host, merged.host, col);
    cuda().rows_from_heads(heads.cuda, merged.cuda, col);
    expect_twin_equal(merged, "rows_from_heads col " + std::to_string(col));  // others still 7
  }
}

TEST_P(CudaBackendDense, TokenEmbeddingForwardAndBackwardMatchHost) {
  constexpr std::int64_t kVocab = 50, kSeq = 9, kHidden = 33, kBatch = 4;
  constexpr std::int64_t kTokens = kBatch * kSeq;
  std::vector<std::int32_t> ids(kTokens);
  for (std::int64_t t = 0; t < kTokens; ++t)
    ids[std::size_t(t)] = std::int32_t((t * 7) % 11);  // repeats
  ids.back() = kVocab - 1;
  TwinTensor tokens = int_twin<std::int32_t>({kTokens}, ids);
  TwinTensor wte = random_twin({kVocab, kHidden}, 71);
  TwinTensor wpe = random_twin({kSeq, kHidden}, 72);
  TwinTensor out = filled_twin({kTokens, kHidden}, 7.0f, dtype());
  host().token_embedding_forward(wte.host, wpe.host, tokens.host, out.host);
  cuda().token_embedding_forward(wte.cuda, wpe.cuda, tokens.cuda, out.cuda);
  expect_twin_close(out, tol(), "token embedding forward");
  TwinTensor dout = random_twin({kTokens, kHidden}, 73, dtype());
  TwinTensor dwte = random_twin({kVocab, kHidden}, 74);  // added to
  TwinTensor dwpe = random_twin({kSeq, kHidden}, 75);
  host().token_embedding_backward(dout.host, tokens.host, dwte.host, dwpe.host);
  cuda().token_embedding_backward(dout.cuda, tokens.cuda, dwte.cuda, dwpe.cuda);
  expect_twin_close(dwte, 1e-5, "token embedding dwte");
  expect_twin_close(dwpe, 1e-5, "token embedding dwpe");
}

TEST_P(CudaBackendDense, InteractionForwardAndBackwardMatchHost) {
  for (const std::int64_t n : {1, 37, 300})
    for (const std::int64_t f : {1, 2, 27}) {
      constexpr std::int64_t kDim = 13;
      const std::int64_t width = kDim + f * (f - 1) / 2;
      const std::string what = "n " + std::to_string(n) + " features " + std::to_string(f);
      TwinTensor z = random_twin({n, f, kDim}, 81, dtype());
      TwinTensor out = filled_twin({n, width}, 7.0f, dtype());
      host().interaction_forward(z.host, out.host);
      cuda().interaction_forward(z.cuda, out.cuda);
      expect_twin_close(out, result_tolerance(dtype(), dtype()), "interaction forward, " + what);
      TwinTensor dout = random_twin({n, width}, 82, dtype());
      TwinTensor dz = filled_twin({n, f, kDim}, 7.0f, dtype());
      host().interaction_backward(z.host, dout.host, dz.host);
      cuda().interaction_backward(z.cuda, dout.cuda, dz.cuda);
      expect_twin_close(dz, dtype() == DType::fp32 ? 3e-5 : tol(2),
                        "interaction backward, " + what);
    }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendDense, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

}  // namespace
}  // namespace scaletune::kernels::cuda
