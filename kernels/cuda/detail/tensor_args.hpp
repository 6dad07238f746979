#pragma once
// Checks and shapes the CUDA backend derives from op-layer tensors before it launches a kernel
// or a library call on their device pointers.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/ops/tensor.hpp"

namespace scaletune::kernels::cuda::detail {

/// A tensor seen as a row-major matrix: its first extent by the product of the others.
struct Matrix {
  std::int64_t rows = 0, cols = 0;
};

/// `t` as a matrix (rank >= 2); throws std::invalid_argument naming `op` otherwise.
inline Matrix as_matrix(const char* op, const ops::Tensor& t) {
  if (t.rank() < 2)
    throw std::invalid_argument(std::string(op) + ": " + t.describe() + ", expected rank >= 2");
  const std::int64_t rows = t.dim(0);
  return {rows, rows == 0 ? 0 : t.numel() / rows};
}

/// Throws std::invalid_argument unless a and b hold the same number of elements.
inline void require_same_numel(const char* op, const ops::Tensor& a, const ops::Tensor& b) {
  if (a.numel() != b.numel())
    throw std::invalid_argument(std::string(op) + ": " + a.describe() + " and " + b.describe() +
                                " differ in size");
}

/// Throws std::invalid_argument unless a and b have the same element type.
inline void require_same_dtype(const char* op, const ops::Tensor& a, const ops::Tensor& b) {
  if (a.dtype() != b.dtype())
    throw std::invalid_argument(std::string(op) + ": " + a.describe() + " and " + b.describe() +
                                " differ in element type");
}

/// Throws std::invalid_argument naming `op` and `name` unless t holds `numel` elements of
/// `dtype`: the count and type a kernel or library call reads or writes at t.data() (any
/// rank, as the host ops see tensors of rank >= 2 as [first extent, the rest]).
inline void require_elements(const char* op, const char* name, const ops::Tensor& t,
                             ops::DType dtype, std::int64_t numel) {
  ops::require_dtype(op, name, t, dtype);
  if (t.numel() != numel)
    throw std::invalid_argument(std::string(op) + ": " + name + " is " + t.describe() +
                                ", expected " + std::to_string(numel) + " elements");
}

/// Throws std::invalid_argument unless t holds fp32.
inline void require_dtype_fp32(const char* op, const ops::Tensor& t) {
  ops::require_dtype(op, "tensor", t, ops::DType::fp32);
}

/// Throws std::invalid_argument unless columns [src_col, src_col + cols) of src and
/// [dst_col, dst_col + cols) of dst exist and both have the same rows.
inline void require_column_block(const char* op, const Matrix& src, std::int64_t src_col,
                                 const Matrix& dst, std::int64_t dst_col, std::int64_t cols) {
  if (src.rows != dst.rows || src_col < 0 || dst_col < 0 || cols < 0 || src_col + cols > src.cols ||
      dst_col + cols > dst.cols)
    throw std::invalid_argument(
        std::string(op) + ": columns [" + std::to_string(src_col) + ", +" + std::to_string(cols) +
        ") of a [" + std::to_string(src.rows) + ", " + std::to_string(src.cols) +
        "] matrix into [" + std::to_string(dst_col) + ", ...) of a [" + std::to_string(dst.rows) +
        ", " + std::to_string(dst.cols) + "] matrix do not fit");
}

}  // namespace scaletune::kernels::cuda::detail
