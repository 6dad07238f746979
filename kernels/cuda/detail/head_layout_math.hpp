#pragma once
// Index map of the attention layout permutes (head_layout.hpp), as the host TransformerBlock
// (kernels/host/transformer_block.cpp rows_to_heads / heads_to_rows) lays out q, k and v:
// element [b, h, s, d] of a [batch, heads, seq, head_dim] tensor is element
// (b * seq + s) * row_stride + column_offset + h * head_dim + d of the token rows.

#include <cstdint>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Sizes of the per-head tensor and where its columns sit in the token rows.
struct HeadLayout {
  std::int64_t batch;
  std::int64_t heads;
  std::int64_t seq;
  std::int64_t head_dim;
  std::int64_t row_stride;     ///< elements from one token row to the next
  std::int64_t column_offset;  ///< column of head 0, d 0 (0 for q, H for k, 2H for v)
};

/// Elements of the head tensor, batch * heads * seq * head_dim.
SCALETUNE_HOST_DEVICE inline std::int64_t head_elements(const HeadLayout& l) {
  return l.batch * l.heads * l.seq * l.head_dim;
}

/// Index into the token rows of element `index` (row-major [b, h, s, d]) of the head tensor.
SCALETUNE_HOST_DEVICE inline std::int64_t head_to_row_index(const HeadLayout& l,
                                                            std::int64_t index) {
  const std::int64_t d = index % l.head_dim;
  std::int64_t rest = index / l.head_dim;
  const std::int64_t s = rest % l.seq;
  rest /= l.seq;
  const std::int64_t h = rest % l.heads;
  const std::int64_t b = rest / l.heads;
  return (b * l.seq + s) * l.row_stride + l.column_offset + h * l.head_dim + d;
}

}  // namespace scaletune::kernels::cuda::detail
