#pragma once
// Index arithmetic of the DLRM interaction kernels (kernels/cuda/interaction.cu): the column of
// pair (i, j), i > j, in the output of kernels/host/interaction.hpp (pairs in the order
// i = 1..F-1, j = 0..i-1 after the D pass-through columns), and its inverse.

#include <cmath>
#include <cstdint>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Width of the interaction output: D + F (F - 1) / 2.
SCALETUNE_HOST_DEVICE inline std::int64_t interaction_width(std::int64_t features,
                                                            std::int64_t dim) {
  return dim + features * (features - 1) / 2;
}

/// Position of pair (i, j), i > j >= 0, among the pairs: i (i - 1) / 2 + j.
SCALETUNE_HOST_DEVICE inline std::int64_t pair_position(std::int64_t i, std::int64_t j) {
  return i * (i - 1) / 2 + j;
}

/// The pair (i, j), i > j >= 0, at position p >= 0 (the inverse of pair_position): i is the
/// largest with i (i - 1) / 2 <= p, from a double square root corrected by integer steps.
struct FeaturePair {
  std::int64_t i;
  std::int64_t j;
};
SCALETUNE_HOST_DEVICE inline FeaturePair pair_at(std::int64_t p) {
  auto i = static_cast<std::int64_t>((1.0 + std::sqrt(1.0 + 8.0 * static_cast<double>(p))) / 2.0);
  while (i > 1 && i * (i - 1) / 2 > p) --i;
  while ((i + 1) * i / 2 <= p) ++i;
  return {i, p - i * (i - 1) / 2};
}

/// G[i, j] of one sample's symmetric pair-gradient matrix: dout[D + pair_position(i, j)] for
/// i > j, dout[D + pair_position(j, i)] for i < j, 0 on the diagonal; dout_at(c) returns column
/// c of the sample's dout row [D + F(F-1)/2] as float.
template <class Load>
SCALETUNE_HOST_DEVICE inline float gram_gradient(const Load& dout_at, std::int64_t dim,
                                                 std::int64_t i, std::int64_t j) {
  if (i == j) return 0.0f;
  return i > j ? dout_at(dim + pair_position(i, j)) : dout_at(dim + pair_position(j, i));
}

}  // namespace scaletune::kernels::cuda::detail
