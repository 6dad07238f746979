#pragma once
// Element-wise host ops on flat arrays that the op layer's host backend needs besides the
// activations: fills, type-converting copies, sums, scaling, column-block copies and the
// non-finite check of mixed precision.

#include <cstddef>
#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels {

/// x[i] = value for i < n; x holds n elements of `type` (fp32, fp64, fp16 or bf16; int32 and
/// int64 take value truncated). Host.
void fill(void* x, core::DType type, std::size_t n, float value);

/// dst[i] = src[i] for i < n, converted from src_type to dst_type (any two of fp32, fp64, fp16,
/// bf16: through float, rounded to nearest even when narrowing; int32 and int64 only to their
/// own type). Host; src and dst must not overlap unless they are the same array of one type.
/// Throws std::invalid_argument for an integer type converted to another type.
void convert_copy(const void* src, core::DType src_type, void* dst, core::DType dst_type,
                  std::size_t n);

/// y[i] += x[i] for i < n, fp32, host.
void add_flat(const float* x, float* y, std::size_t n);

/// x[i] *= alpha for i < n, fp32, host.
void scale_flat(float* x, std::size_t n, float alpha);

/// For every row r < rows: dst[r * dst_stride + dst_col + c] = (or +=, with accumulate)
/// src[r * src_stride + src_col + c], c < cols; fp32, host (strides and columns in elements).
void copy_columns(const float* src, std::size_t src_stride, std::size_t src_col, float* dst,
                  std::size_t dst_stride, std::size_t dst_col, std::size_t rows, std::size_t cols,
                  bool accumulate);

/// True when any of the n fp32 values at x is NaN or infinite. Host.
bool any_nonfinite(const float* x, std::size_t n);

}  // namespace scaletune::kernels
