#pragma once
// Inverted dropout with a counter-based mask: reproducible from (seed, step, global element)
// alone, so it does not depend on how the rows are split over ranks and needs no stored mask.

#include <cstdint>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Which mask one dropout call draws. Element (n, f) of a local [N, F] tensor is global
/// element e = (first_row + n) * F + f; it is kept when the top 53 bits of a SplitMix64 hash
/// of (seed, step, e), read as a fraction in [0, 1), are >= p (SplitMix64: Steele, Lea, Flood
/// 2014), so every rank holding that row draws the same bit. Use a new step per iteration and a
/// distinct seed per dropout site.
struct DropoutMask {
  float p = 0.0f;              ///< drop probability, in [0, 1)
  std::uint64_t seed = 0;      ///< run seed ([run] seed of the job) mixed with the site
  std::uint64_t step = 0;      ///< training iteration
  std::int64_t first_row = 0;  ///< global index of the local tensor's row 0, >= 0
};

/// y = x * keep / (1 - p), keep in {0, 1} drawn as DropoutMask says (inverted dropout,
/// Srivastava et al. 2014, scaled at training time as torch.nn.Dropout); p = 0 is the identity.
/// x, y [N, F], host, contiguous; y may alias x (in place). Throws std::invalid_argument when
/// y's shape differs from x's, a view is not contiguous, p is outside [0, 1) or first_row < 0.
void dropout_forward(const Tensor2& x, const DropoutMask& mask, const Tensor2& y);

/// dx = dy * keep / (1 - p) with the mask recomputed from `mask` (pass the forward's): no mask
/// is stored between forward and backward. dy, dx [N, F], host, contiguous; dx may alias dy.
/// Throws as dropout_forward.
void dropout_backward(const Tensor2& dy, const DropoutMask& mask, const Tensor2& dx);

}  // namespace scaletune::kernels
