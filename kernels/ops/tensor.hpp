#pragma once
// The tensor every op of the op layer takes: a non-owning view of a dense, row-major array in
// one backend's memory space. The same step code then runs on the host backend (host memory),
// the CUDA backend (the rank's GPU) or a describing backend (no memory at all: data is null,
// only shapes and element types matter).

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "harness/core/dtype.hpp"

namespace scaletune::ops {

using core::DType;

/// Largest rank an op tensor has ([N, C, H, W]).
inline constexpr int kMaxRank = 4;

/// A view of shape() elements of dtype(), row-major (last index fastest) and contiguous, at
/// data() in the memory space of the backend that made it. Copying a Tensor copies the view,
/// never the data. A default-constructed Tensor is "none" (defined() false): optional
/// arguments take it (e.g. no input gradient for the first layer). data() may be null for a
/// defined tensor of a backend that holds no memory.
class Tensor {
 public:
  /// The "none" tensor: rank 0, no data.
  Tensor() = default;
  /// A view of `shape` (1 to kMaxRank extents, each >= 0) at `data`. Throws
  /// std::invalid_argument on another rank or a negative extent.
  Tensor(void* data, DType dtype, std::initializer_list<std::int64_t> shape);
  /// As above, from a span of extents.
  Tensor(void* data, DType dtype, std::span<const std::int64_t> shape);

  /// True unless this is the "none" tensor.
  bool defined() const { return m_rank > 0; }
  void* data() const { return m_data; }
  DType dtype() const { return m_dtype; }
  /// Number of extents, 0 for "none".
  int rank() const { return m_rank; }
  /// Extent i, 0 <= i < rank(); throws std::out_of_range otherwise.
  std::int64_t dim(int i) const;
  /// The extents, [rank()].
  std::span<const std::int64_t> shape() const { return {m_shape.data(), std::size_t(m_rank)}; }
  /// Product of the extents (0 for "none").
  std::int64_t numel() const;
  /// numel() * dtype_bytes(dtype()), bytes.
  std::size_t bytes() const;
  /// "[2, 64, 56, 56] fp32", for messages.
  std::string describe() const;

  /// The same data seen with another shape of equal numel(). Throws std::invalid_argument
  /// otherwise.
  Tensor reshaped(std::initializer_list<std::int64_t> shape) const;
  /// Rows [begin, begin + count) along dimension 0 (rank and other extents kept). Throws
  /// std::out_of_range when they are not within dim(0).
  Tensor rows(std::int64_t begin, std::int64_t count) const;
  /// `shape` elements starting `offset` elements after data() (a window of a flat buffer).
  /// Throws std::out_of_range when the window does not lie within numel().
  Tensor window(std::int64_t offset, std::initializer_list<std::int64_t> shape) const;

  /// data() as T*, after checking that T matches dtype() (float: fp32, double: fp64,
  /// std::int32_t: int32, std::int64_t: int64); throws std::invalid_argument naming both
  /// otherwise. For 16-bit types use data().
  template <class T>
  T* as() const;

 private:
  void* m_data = nullptr;
  DType m_dtype = DType::fp32;
  int m_rank = 0;
  std::array<std::int64_t, kMaxRank> m_shape{};
};

/// True when both are defined and have the same shape (element types may differ).
bool same_shape(const Tensor& a, const Tensor& b);

/// Throws std::invalid_argument "<op>: <name> is <describe>, expected <want>" unless `t` has
/// exactly the extents `want` (dtype not checked).
void require_shape(const char* op, const char* name, const Tensor& t,
                   std::initializer_list<std::int64_t> want);

/// Throws std::invalid_argument naming the op, the tensor and both types unless t.dtype() is
/// `want`.
void require_dtype(const char* op, const char* name, const Tensor& t, DType want);

}  // namespace scaletune::ops
