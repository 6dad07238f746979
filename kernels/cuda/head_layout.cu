#include "head_layout.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/head_layout_math.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// One thread per head-tensor element, in its row-major order: consecutive threads move
/// consecutive d, so both sides coalesce in runs of head_dim elements.
template <class T>
struct RowsToHeads {
  detail::HeadLayout layout;
  const T* rows;
  T* heads;
  __device__ void operator()(std::int64_t i) const {
    heads[i] = rows[detail::head_to_row_index(layout, i)];
  }
};

template <class T>
struct HeadsToRows {
  detail::HeadLayout layout;
  const T* heads;
  T* rows;
  __device__ void operator()(std::int64_t i) const {
    rows[detail::head_to_row_index(layout, i)] = heads[i];
  }
};

/// The layout after checking the sizes (non-negative, the head columns inside a row, no
/// element count overflowing).
detail::HeadLayout checked_layout(const char* op, std::int64_t batch, std::int64_t heads,
                                  std::int64_t seq, std::int64_t head_dim, std::int64_t row_stride,
                                  std::int64_t column_offset) {
  detail::require_size(op, "batch", batch);
  detail::require_size(op, "heads", heads);
  detail::require_size(op, "seq", seq);
  detail::require_size(op, "head_dim", head_dim);
  detail::require_size(op, "row_stride", row_stride);
  detail::require_size(op, "column_offset", column_offset);
  const std::int64_t width = detail::checked_elements(op, heads, head_dim);
  if (column_offset + width > row_stride)
    throw std::invalid_argument(std::string(op) + ": columns [" + std::to_string(column_offset) +
                                ", " + std::to_string(column_offset + width) +
                                ") do not fit in rows of " + std::to_string(row_stride) +
                                ", expected column_offset + heads * head_dim <= row_stride");
  const std::int64_t tokens = detail::checked_elements(op, batch, seq);
  static_cast<void>(detail::checked_elements(op, tokens, row_stride));
  static_cast<void>(detail::checked_elements(op, tokens, width));
  return detail::HeadLayout{batch, heads, seq, head_dim, row_stride, column_offset};
}

}  // namespace

void rows_to_heads(cudaStream_t stream, core::DType type, std::int64_t batch, std::int64_t heads,
                   std::int64_t seq, std::int64_t head_dim, std::int64_t row_stride,
                   std::int64_t column_offset, const void* rows, void* heads_out) {
  constexpr const char* kOp = "rows_to_heads";
  const detail::HeadLayout layout =
      checked_layout(kOp, batch, heads, seq, head_dim, row_stride, column_offset);
  const std::int64_t elements = detail::head_elements(layout);
  detail::require_pointers(kOp, elements, {{"rows", rows}, {"heads", heads_out}});
  detail::dispatch_activation(type, kOp, "rows", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(
        stream, elements,
        RowsToHeads<T>{layout, static_cast<const T*>(rows), static_cast<T*>(heads_out)});
  });
}

void heads_to_rows(cudaStream_t stream, core::DType type, std::int64_t batch, std::int64_t heads,
                   std::int64_t seq, std::int64_t head_dim, std::int64_t row_stride,
                   std::int64_t column_offset, const void* heads_in, void* rows) {
  constexpr const char* kOp = "heads_to_rows";
  const detail::HeadLayout layout =
      checked_layout(kOp, batch, heads, seq, head_dim, row_stride, column_offset);
  const std::int64_t elements = detail::head_elements(layout);
  detail::require_pointers(kOp, elements, {{"heads", heads_in}, {"rows", rows}});
  detail::dispatch_activation(type, kOp, "heads", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(
        stream, elements,
        HeadsToRows<T>{layout, static_cast<const T*>(heads_in), static_cast<T*>(rows)});
  });
}

}  // namespace scaletune::kernels::cuda
