#pragma once
// Op-layer tensors seen as the host ops' Kokkos views (unmanaged, no copy), after checking the
// element type and rank each host op takes.

#include <cstddef>
#include <string>

#include "kernels/host/half_table.hpp"
#include "kernels/host/tensor.hpp"
#include "kernels/ops/tensor.hpp"

namespace scaletune::kernels::detail {

inline std::size_t extent(const ops::Tensor& t, int i) {
  return static_cast<std::size_t>(t.dim(i));
}

/// Throws std::invalid_argument naming `op` unless t has rank `rank`.
inline void require_rank(const char* op, const ops::Tensor& t, int rank) {
  if (t.rank() != rank)
    throw std::invalid_argument(std::string(op) + ": tensor " + t.describe() + ", expected rank " +
                                std::to_string(rank));
}

/// [N, C, H, W] fp32.
inline Tensor4 view4(const char* op, const ops::Tensor& t) {
  require_rank(op, t, 4);
  return Tensor4(t.as<float>(), extent(t, 0), extent(t, 1), extent(t, 2), extent(t, 3));
}

/// [N, F] fp32; a tensor of any rank >= 2 is seen as [dim 0, the rest].
inline Tensor2 view2(const char* op, const ops::Tensor& t) {
  if (t.rank() < 2)
    throw std::invalid_argument(std::string(op) + ": tensor " + t.describe() +
                                ", expected rank >= 2");
  std::size_t cols = 1;  // from the extents, so [0, D] stays [0, D]
  for (int i = 1; i < t.rank(); ++i) cols *= extent(t, i);
  return Tensor2(t.as<float>(), extent(t, 0), cols);
}

/// [N, F, D] fp32.
inline Tensor3 view3(const char* op, const ops::Tensor& t) {
  require_rank(op, t, 3);
  return Tensor3(t.as<float>(), extent(t, 0), extent(t, 1), extent(t, 2));
}

/// The flat fp32 elements of a tensor of any rank.
inline Vector flat(const ops::Tensor& t) {
  return Vector(t.as<float>(), static_cast<std::size_t>(t.numel()));
}

/// int32 labels or token ids [N].
inline Labels labels(const char* op, const ops::Tensor& t) {
  require_rank(op, t, 1);
  return Labels(t.as<std::int32_t>(), extent(t, 0));
}

/// int64 indices [n].
inline IndexVector indices(const char* op, const ops::Tensor& t) {
  require_rank(op, t, 1);
  return IndexVector(t.as<std::int64_t>(), extent(t, 0));
}

/// A [R, D] fp16 table.
inline Fp16Table fp16_table(const ops::Tensor& t) {
  return Fp16Table(static_cast<Eigen::half*>(t.data()), extent(t, 0), extent(t, 1));
}

/// A [R, D] bf16 table.
inline Bf16Table bf16_table(const ops::Tensor& t) {
  return Bf16Table(static_cast<Eigen::bfloat16*>(t.data()), extent(t, 0), extent(t, 1));
}

}  // namespace scaletune::kernels::detail
