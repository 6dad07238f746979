#pragma once
// Moving q, k and v between the token rows of a projection and the per-head layout attention
// runs on (GPT-2's split and view(B, S, heads, Dh).transpose(1, 2)).

#include <cstddef>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// heads[b, h, s, d] = rows[(b * S + s) * row_stride + h * Dh + d]: one of q, k, v (rows points
/// at its first column) out of token rows, into heads [B, heads, S, Dh]. Host.
void rows_to_heads(const float* rows, std::size_t row_stride, const Tensor4& heads);

/// The inverse of rows_to_heads: rows[(b * S + s) * row_stride + h * Dh + d] = heads[b, h, s, d];
/// the other columns of rows are left alone. Host.
void heads_to_rows(const Tensor4& heads, float* rows, std::size_t row_stride);

}  // namespace scaletune::kernels
