#pragma once
// Inverted dropout with a counter-based mask: reproducible from (seed, step, global element)
// alone, so it does not depend on how the rows are split over ranks and needs no stored mask.

#include <cstdint>

#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

using ops::DropoutMask;

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
