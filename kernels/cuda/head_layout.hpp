#pragma once
// The attention layout permutes of the host TransformerBlock on device activations (fp32, fp16
// or bf16): a column block of [T, row_stride] token rows (T = batch * seq, rows sample-major)
// to and from [batch, heads, seq, head_dim] per-head tensors (GPT-2's split of the qkv rows
// and view(B, S, heads, Dh).transpose(1, 2), and its inverse for the merged heads). Pure
// copies, so bit-exact. Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// heads[b, h, s, d] = rows[(b * seq + s) * row_stride + column_offset + h * head_dim + d]:
/// column_offset 0, H and 2H with row_stride 3H take q, k and v out of the [T, 3H] qkv rows.
/// rows [batch * seq, row_stride], heads [batch, heads, seq, head_dim]; element type `type`;
/// device, row-major, contiguous, not overlapping. Throws std::invalid_argument when a size is
/// < 0, the head columns do not fit in a row (column_offset + heads * head_dim > row_stride), a
/// pointer is null (elements > 0) or `type` is not fp32, fp16 or bf16; CudaError when the
/// launch fails.
void rows_to_heads(cudaStream_t stream, core::DType type, std::int64_t batch, std::int64_t heads,
                   std::int64_t seq, std::int64_t head_dim, std::int64_t row_stride,
                   std::int64_t column_offset, const void* rows, void* heads_out);

/// The inverse: rows[(b * seq + s) * row_stride + column_offset + h * head_dim + d] =
/// heads[b, h, s, d] (other columns of rows untouched); row_stride H, offset 0 merges the
/// attention heads, row_stride 3H with offsets 0, H, 2H writes dq, dk, dv into the qkv
/// gradient. Shapes, types and errors as rows_to_heads.
void heads_to_rows(cudaStream_t stream, core::DType type, std::int64_t batch, std::int64_t heads,
                   std::int64_t seq, std::int64_t head_dim, std::int64_t row_stride,
                   std::int64_t column_offset, const void* heads_in, void* rows);

}  // namespace scaletune::kernels::cuda
