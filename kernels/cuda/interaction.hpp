#pragma once
// The DLRM dot interaction on the device around cuBLAS (kernels/host/interaction.hpp is the
// reference). The backend computes the per-sample Gram matrix with a strided-batched GEMM and
// these kernels do the rest:
//   forward:  z [N, F, D] (interaction_gather_feature) -> gram = Z Z^T [N, F, F] fp32 (GEMM)
//             -> out [N, D + F(F-1)/2] (interaction_forward_output)
//   backward: dout -> G [N, F, F] (interaction_backward_gram) -> dz = G Z (GEMM, dz
//             overwritten) -> dz[:, 0, :] += dout[:, 0, :D] (interaction_backward_add_bottom)
//             -> d bottom_out and the pooled embeddings' gradients (interaction_slice_feature).
// z[n, 0, :] is the bottom-MLP output and z[n, 1 + t, :] the pooled embedding of table t.
// Pairs are in the host's order: i = 1..F-1, j = 0..i-1, pair (i, j) at column
// D + i (i - 1) / 2 + j. All tensors are contiguous row-major device arrays; each takes its own
// element type (core::DType fp32, fp16 or bf16; 16-bit values are read exactly and written
// rounded to nearest even, the math between is fp32). Work is queued on `stream`; nothing
// synchronises. Every launcher throws std::invalid_argument on batch, features or dim < 1, a
// null pointer, an unsupported dtype or a grid too large.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// out[n, :] = concat(z[n, 0, :], gram[n, i, j] for the pairs i > j) (out overwritten).
/// z [batch, features, dim] and out [batch, dim + features (features - 1) / 2] in `dtype`;
/// gram [batch, features, features] fp32 = Z Z^T per sample (only its strict lower triangle,
/// row i > column j, is read). The first dim columns are copied exactly.
void interaction_forward_output(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                std::int64_t dim, core::DType dtype, const void* z,
                                const float* gram, void* out);

/// grad_gram[n, i, j] = grad_gram[n, j, i] = dout[n, dim + pair (max(i, j), min(i, j))],
/// grad_gram[n, i, i] = 0 (overwritten), so that dz = grad_gram Z is the pairs' share of the
/// gradient (d dot(z_i, z_j) / d z_i = z_j). dout [batch, dim + features (features - 1) / 2] in
/// dout_dtype; grad_gram [batch, features, features] in grad_gram_dtype (Z's type, for the GEMM).
void interaction_backward_gram(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                               std::int64_t dim, core::DType dout_dtype, const void* dout,
                               core::DType grad_gram_dtype, void* grad_gram);

/// dz[n, 0, d] += dout[n, d] for d < dim (ADDS: run after the GEMM that wrote dz = G Z): the
/// pass-through of z[:, 0, :] into the output's first dim columns. dout as for
/// interaction_backward_gram; dz [batch, features, dim] in dz_dtype.
void interaction_backward_add_bottom(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                     std::int64_t dim, core::DType dout_dtype, const void* dout,
                                     core::DType dz_dtype, void* dz);

/// z[n, feature, col_begin + c] = sum over k of sources[k][n, c], for n < batch, c < cols
/// (overwritten), summed in fp32 from 0 in the order of `sources` and rounded once into z's
/// type (sources beyond the 32 summed per launch are added to the value already stored, which
/// for a 16-bit z rounds once per 32 sources). The device form of the host's assembly of z:
///   - the bottom-MLP output [batch, dim]: feature 0, col_begin 0, cols dim, one source
///     (kernels/dlrm/dlrm.cpp copies bottom_out into z[:, 0, :]);
///   - a data-parallel table t's pooled [batch, dim]: feature 1 + t, cols dim, one source;
///   - a model-parallel table t's received blocks [batch, cols] (ShardedEmbeddings::
///     gather_pooled): column-wise shards one call per column range; row-wise shards, which
///     hold partial sums of the same columns, one call with every rank's block in rank order
///     (the host adds them to zero in rank order: the same fp32 sum).
/// sources: at least one device pointer to [batch, cols] row-major arrays in src_dtype (the
/// span itself is host memory). z [batch, features, dim] in z_dtype. Throws
/// std::invalid_argument as the file comment says, and when feature is outside
/// [0, features), col_begin < 0, cols < 1, col_begin + cols > dim or sources is empty.
void interaction_gather_feature(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                std::int64_t dim, std::int64_t feature, std::int64_t col_begin,
                                std::int64_t cols, core::DType src_dtype,
                                std::span<const void* const> sources, core::DType z_dtype, void* z);

/// dst[n, c] = z[n, feature, col_begin + c] for n < batch, c < cols (dst [batch, cols] in
/// dst_dtype, overwritten): the inverse of interaction_gather_feature for the backward, taking
/// dz[:, 0, :] to the bottom MLP's gradient and dz[:, 1 + t, cols] to a shard's pooled gradient
/// (ShardedEmbeddings::scatter_gradients; for row-wise shards every rank gets the same slice).
/// Throws as interaction_gather_feature for the feature and columns.
void interaction_slice_feature(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                               std::int64_t dim, std::int64_t feature, std::int64_t col_begin,
                               std::int64_t cols, core::DType z_dtype, const void* z,
                               core::DType dst_dtype, void* dst);

}  // namespace scaletune::kernels::cuda
