// The CUDA backend's dense ops: GEMMs (cuBLAS), fully-connected layers, layer normalisation,
// the attention layouts, GPT-2's input embedding and DLRM's interaction.
#include <cublas_v2.h>

#include <array>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/bias.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/detail/library_types.hpp"
#include "kernels/cuda/detail/tensor_args.hpp"
#include "kernels/cuda/head_layout.hpp"
#include "kernels/cuda/interaction.hpp"
#include "kernels/cuda/layer_norm.hpp"
#include "kernels/cuda/token_embedding.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// One operand of a (batched) row-major GEMM: [batch, rows, cols].
struct Operand {
  std::int64_t batch = 1, rows = 0, cols = 0;
};

Operand operand(const char* name, const ops::Tensor& t) {
  if (t.rank() == 2) return {1, t.dim(0), t.dim(1)};
  if (t.rank() == 3) return {t.dim(0), t.dim(1), t.dim(2)};
  throw std::invalid_argument(std::string("CudaBackend::gemm: ") + name + " is " + t.describe() +
                              ", expected rank 2 or 3");
}

/// t seen as the matrix [first extent, the rest], as the host's fully-connected layer sees it
/// (rank 2, not a batch of matrices). Throws std::invalid_argument for rank < 2.
ops::Tensor as_2d(const char* op, const ops::Tensor& t) {
  const detail::Matrix m = detail::as_matrix(op, t);
  return t.reshaped({m.rows, m.cols});
}

/// Throws std::invalid_argument unless heads is [B, heads, S, Dh] of the rows' element type and
/// the token rows r (of `rows`) are B S (the kernels check that the columns fit).
void require_head_rows(const char* op, const detail::Matrix& r, const ops::Tensor& rows,
                       const ops::Tensor& heads) {
  if (heads.rank() != 4)
    throw std::invalid_argument(std::string(op) + ": heads is " + heads.describe() +
                                ", expected [B, heads, S, Dh]");
  ops::require_dtype(op, "heads", heads, rows.dtype());
  if (r.rows != heads.dim(0) * heads.dim(2))
    throw std::invalid_argument(std::string(op) + ": rows " + rows.describe() + " for heads " +
                                heads.describe() + ", expected B S rows");
}

/// Throws std::invalid_argument unless the token rows [T, H] (out of the forward, dout of the
/// backward) fit tokens int32 [T] and the fp32 tables te [V, H] and pe [S, H].
void require_token_rows(const char* op, const ops::Tensor& rows, const ops::Tensor& tokens,
                        const ops::Tensor& te, const ops::Tensor& pe) {
  const std::int64_t t = tokens.numel(), h = pe.rank() == 2 ? pe.dim(1) : -1;
  if (tokens.rank() != 1 || te.rank() != 2 || te.dim(1) != h || pe.dim(0) < 1 ||
      rows.numel() != t * h)
    throw std::invalid_argument(std::string(op) + ": tokens " + tokens.describe() + ", wte " +
                                te.describe() + ", wpe " + pe.describe() + " and token rows " +
                                rows.describe() + ", expected [T], [V, H], [S, H] and [T, H]");
  ops::require_dtype(op, "tokens", tokens, ops::DType::int32);
}

}  // namespace

void CudaBackend::gemm(bool trans_a, bool trans_b, float alpha, const ops::Tensor& a,
                       const ops::Tensor& b, float beta, const ops::Tensor& c) {
  constexpr const char* kOp = "CudaBackend::gemm";
  const Operand sa = operand("a", a), sb = operand("b", b), sc = operand("c", c);
  const std::int64_t m = trans_a ? sa.cols : sa.rows, k = trans_a ? sa.rows : sa.cols;
  const std::int64_t kb = trans_b ? sb.cols : sb.rows, n = trans_b ? sb.rows : sb.cols;
  if (sa.batch != sc.batch || sb.batch != sc.batch || k != kb || sc.rows != m || sc.cols != n)
    throw std::invalid_argument(std::string(kOp) + ": a " + a.describe() + (trans_a ? "^T" : "") +
                                " times b " + b.describe() + (trans_b ? "^T" : "") +
                                " does not give c " + c.describe());
  detail::require_same_dtype(kOp, a, b);
  if (m == 0 || n == 0 || sc.batch == 0) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
  SCALETUNE_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      m_context.cublas(), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
      int(n), int(m), int(k), &alpha, b.data(), detail::cublas_type(kOp, b.dtype()), int(sb.cols),
      sb.rows * sb.cols, a.data(), detail::cublas_type(kOp, a.dtype()), int(sa.cols),
      sa.rows * sa.cols, &beta, c.data(), detail::cublas_type(kOp, c.dtype()), int(sc.cols),
      sc.rows * sc.cols, int(sc.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void CudaBackend::linear_forward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& b,
                                 const ops::Tensor& y) {
  constexpr const char* kOp = "CudaBackend::linear_forward";
  const ops::Tensor y2 = as_2d(kOp, y);
  detail::require_elements(kOp, "b", b, ops::DType::fp32, y2.dim(1));
  gemm(false, true, 1.0f, as_2d(kOp, x), as_2d(kOp, w), 0.0f, y2);
  bias_add(stream(), y.dtype(), y2.dim(0), y2.dim(1), b.as<float>(), y.data());
}

void CudaBackend::linear_backward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& dy,
                                  const ops::Tensor& dw, const ops::Tensor& db,
                                  const ops::Tensor& dx, ops::GradMode mode) {
  constexpr const char* kOp = "CudaBackend::linear_backward";
  const bool accumulate = mode == ops::GradMode::accumulate;
  const ops::Tensor dy2 = as_2d(kOp, dy), w2 = as_2d(kOp, w);
  detail::require_elements(kOp, "db", db, ops::DType::fp32, dy2.dim(1));
  gemm(true, false, 1.0f, dy2, as_2d(kOp, x), accumulate ? 1.0f : 0.0f, as_2d(kOp, dw));
  bias_grad(stream(), dy.dtype(), dy2.dim(0), dy2.dim(1), dy.data(), db.as<float>(), accumulate);
  if (dx.defined()) gemm(false, false, 1.0f, dy2, w2, 0.0f, as_2d(kOp, dx));
}

void CudaBackend::layer_norm_forward(const ops::Tensor& x, const ops::Tensor& gamma,
                                     const ops::Tensor& beta, const ops::Tensor& y,
                                     const ops::Tensor& mean, const ops::Tensor& rstd, float eps) {
  constexpr const char* kOp = "CudaBackend::layer_norm_forward";
  const detail::Matrix m = detail::as_matrix(kOp, x);
  detail::require_elements(kOp, "y", y, x.dtype(), x.numel());
  detail::require_elements(kOp, "gamma", gamma, ops::DType::fp32, m.cols);
  detail::require_elements(kOp, "beta", beta, ops::DType::fp32, m.cols);
  detail::require_elements(kOp, "mean", mean, ops::DType::fp32, m.rows);
  detail::require_elements(kOp, "rstd", rstd, ops::DType::fp32, m.rows);
  cuda::layer_norm_forward(stream(), x.dtype(), m.rows, m.cols, eps, x.data(), gamma.as<float>(),
                           beta.as<float>(), y.data(), mean.as<float>(), rstd.as<float>());
}

void CudaBackend::layer_norm_backward(const ops::Tensor& x, const ops::Tensor& gamma,
                                      const ops::Tensor& dy, const ops::Tensor& mean,
                                      const ops::Tensor& rstd, const ops::Tensor& dx,
                                      const ops::Tensor& dgamma, const ops::Tensor& dbeta) {
  constexpr const char* kOp = "CudaBackend::layer_norm_backward";
  const detail::Matrix m = detail::as_matrix(kOp, x);
  detail::require_elements(kOp, "dy", dy, x.dtype(), x.numel());
  detail::require_elements(kOp, "dx", dx, x.dtype(), x.numel());
  detail::require_elements(kOp, "gamma", gamma, ops::DType::fp32, m.cols);
  detail::require_elements(kOp, "mean", mean, ops::DType::fp32, m.rows);
  detail::require_elements(kOp, "rstd", rstd, ops::DType::fp32, m.rows);
  detail::require_elements(kOp, "dgamma", dgamma, ops::DType::fp32, m.cols);
  detail::require_elements(kOp, "dbeta", dbeta, ops::DType::fp32, m.cols);
  cuda::layer_norm_backward(stream(), x.dtype(), m.rows, m.cols, x.data(), gamma.as<float>(),
                            dy.data(), mean.as<float>(), rstd.as<float>(), dx.data(),
                            dgamma.as<float>(), dbeta.as<float>());
}

void CudaBackend::heads_from_rows(const ops::Tensor& rows, std::int64_t col,
                                  const ops::Tensor& heads) {
  const detail::Matrix r = detail::as_matrix("CudaBackend::heads_from_rows", rows);
  require_head_rows("CudaBackend::heads_from_rows", r, rows, heads);
  rows_to_heads(stream(), rows.dtype(), heads.dim(0), heads.dim(1), heads.dim(2), heads.dim(3),
                r.cols, col, rows.data(), heads.data());
}

void CudaBackend::rows_from_heads(const ops::Tensor& heads, const ops::Tensor& rows,
                                  std::int64_t col) {
  const detail::Matrix r = detail::as_matrix("CudaBackend::rows_from_heads", rows);
  require_head_rows("CudaBackend::rows_from_heads", r, rows, heads);
  heads_to_rows(stream(), heads.dtype(), heads.dim(0), heads.dim(1), heads.dim(2), heads.dim(3),
                r.cols, col, heads.data(), rows.data());
}

void CudaBackend::token_embedding_forward(const ops::Tensor& wte, const ops::Tensor& wpe,
                                          const ops::Tensor& tokens, const ops::Tensor& out) {
  require_token_rows("CudaBackend::token_embedding_forward", out, tokens, wte, wpe);
  cuda::token_embedding_forward(stream(), tokens.numel(), wpe.dim(0), wpe.dim(1), wte.as<float>(),
                                wpe.as<float>(), tokens.as<std::int32_t>(), out.dtype(),
                                out.data());
}

void CudaBackend::token_embedding_backward(const ops::Tensor& dout, const ops::Tensor& tokens,
                                           const ops::Tensor& dwte, const ops::Tensor& dwpe) {
  require_token_rows("CudaBackend::token_embedding_backward", dout, tokens, dwte, dwpe);
  cuda::token_embedding_backward(stream(), tokens.numel(), dwpe.dim(0), dwpe.dim(1), dout.dtype(),
                                 dout.data(), tokens.as<std::int32_t>(), dwte.as<float>(),
                                 dwpe.as<float>());
}

void CudaBackend::interaction_forward(const ops::Tensor& z, const ops::Tensor& out) {
  const std::int64_t n = z.dim(0), f = z.dim(1), d = z.dim(2);
  detail::require_elements("CudaBackend::interaction_forward", "out", out, z.dtype(),
                           n * (d + f * (f - 1) / 2));
  // The per-sample Gram matrices Z Z^T [N, F, F] (fp32) in the workspace.
  const ops::Tensor gram(scratch(std::size_t(n * f * f) * sizeof(float)), ops::DType::fp32,
                         {n, f, f});
  gemm(false, true, 1.0f, z, z, 0.0f, gram);
  interaction_forward_output(stream(), n, f, d, z.dtype(), z.data(), gram.as<float>(), out.data());
}

void CudaBackend::interaction_backward(const ops::Tensor& z, const ops::Tensor& dout,
                                       const ops::Tensor& dz) {
  const std::int64_t n = z.dim(0), f = z.dim(1), d = z.dim(2);
  detail::require_elements("CudaBackend::interaction_backward", "dout", dout, dout.dtype(),
                           n * (d + f * (f - 1) / 2));
  const ops::Tensor grad_gram(scratch(std::size_t(n * f * f) * core::dtype_bytes(z.dtype())),
                              z.dtype(), {n, f, f});
  interaction_backward_gram(stream(), n, f, d, dout.dtype(), dout.data(), z.dtype(),
                            grad_gram.data());
  gemm(false, false, 1.0f, grad_gram, z, 0.0f, dz);
  interaction_backward_add_bottom(stream(), n, f, d, dout.dtype(), dout.data(), dz.dtype(),
                                  dz.data());
}

}  // namespace scaletune::kernels::cuda
