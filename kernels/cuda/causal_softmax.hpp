#pragma once
// Row-wise softmax with the causal mask of decoder self-attention on device score matrices
// (fp32, fp16 or bf16), with the semantics of the host kernels/host/causal_softmax.hpp: no
// 1/sqrt(Dh) scale here (the host attention applies it as the alpha of the score GEMM, so the
// CUDA backend passes it to cuBLAS). One warp per row (cub::WarpReduce), math in fp32.
// Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// p[r,i,j] = exp(s[r,i,j] - m) / sum_{j'<=i} exp(s[r,i,j'] - m) for j <= i, with
/// m = max_{j<=i} s[r,i,j], and p[r,i,j] = 0 exactly for j > i (masked scores are never read).
/// scores, p [batch_heads, seq, seq] of element type `type`, device, contiguous; p may alias
/// scores (in place). Throws std::invalid_argument when a size is < 0, a pointer is null
/// (batch_heads * seq > 0) or `type` is not fp32, fp16 or bf16; CudaError when the launch fails.
void causal_softmax_forward(cudaStream_t stream, core::DType type, std::int64_t batch_heads,
                            std::int64_t seq, const void* scores, void* p);

/// dscores[r,i,j] = p[r,i,j] * (dp[r,i,j] - sum_{j'<=i} p[r,i,j'] dp[r,i,j']) for j <= i, and
/// 0 for j > i. p is the forward's output; p, dp, dscores [batch_heads, seq, seq] of element
/// type `type`, device, contiguous; dscores may alias dp. Throws as causal_softmax_forward.
void causal_softmax_backward(cudaStream_t stream, core::DType type, std::int64_t batch_heads,
                             std::int64_t seq, const void* p, const void* dp, void* dscores);

}  // namespace scaletune::kernels::cuda
