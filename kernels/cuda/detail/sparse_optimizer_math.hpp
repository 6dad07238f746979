#pragma once
// Per-element bodies of the sparse optimizer kernels (kernels/cuda/sparse_optimizer.cu): the
// arithmetic of kernels/host/sparse_optimizer.cpp, operation for operation, each rounded once
// (exact_float.hpp), so that a device step equals the host step bit for bit on the same inputs
// (tests/unit checks the bodies against the host op, 16-bit tables included).

#include <cstdint>

#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// error_flags bits of the sparse steps (public names in kernels/cuda/embedding_bag.hpp and
/// kernels/cuda/sparse_optimizer.hpp).
inline constexpr int kErrorRowOutOfRange = 1;
inline constexpr int kErrorRowsUnordered = 4;

/// 0 when rows[u] may be updated: in [0, num_rows) and, for u > 0, greater than rows[u - 1];
/// else the kError* bit saying why (the row is then skipped).
SCALETUNE_HOST_DEVICE inline int check_update_row(const std::int64_t* rows, std::int64_t u,
                                                  std::int64_t num_rows) {
  const std::int64_t row = rows[u];
  if (row < 0 || row >= num_rows) return kErrorRowOutOfRange;
  if (u > 0 && rows[u - 1] >= row) return kErrorRowsUnordered;
  return 0;
}

/// The gradient the step uses: g * unscale (dynamic loss scaling; unscale = 1 leaves g exact,
/// which is the host op).
SCALETUNE_HOST_DEVICE inline float unscaled_gradient(float g, float unscale) {
  return mul_rn(g, unscale);
}

/// One descent update in fp32: w - step * g (host descend_row). The caller rounds the result to
/// the table's type.
SCALETUNE_HOST_DEVICE inline float descend(float w, float g, float step) {
  return sub_rn(w, mul_rn(step, g));
}

/// Rowwise Adagrad's running sum of squares, one element: sum + g * g (host order: d = 0, 1, ...).
SCALETUNE_HOST_DEVICE inline float add_square(float sum_squares, float g) {
  return add_rn(sum_squares, mul_rn(g, g));
}

/// Rowwise Adagrad's new row state: state + sum_squares / dim (dim >= 1).
SCALETUNE_HOST_DEVICE inline float rowwise_adagrad_state(float state, float sum_squares,
                                                         std::int64_t dim) {
  return add_rn(state, div_rn(sum_squares, static_cast<float>(dim)));
}

/// Rowwise Adagrad's step of a row with state `state` (already updated): lr / (sqrt(state) + eps)
/// (FBGEMM's rowwise_adagrad multiplier).
SCALETUNE_HOST_DEVICE inline float rowwise_adagrad_step_size(float lr, float state, float eps) {
  return div_rn(lr, add_rn(sqrt_rn(state), eps));
}

}  // namespace scaletune::kernels::cuda::detail
