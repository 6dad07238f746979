#pragma once
// Element-wise activation ops: ReLU forward and backward, and the residual addition.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// y = max(x, 0) element-wise (Nair & Hinton 2010). x, y [N,C,H,W], host, contiguous; y may
/// alias x (in place). Throws std::invalid_argument when y's shape differs from x's.
void relu_forward(const Tensor4& x, const Tensor4& y);

/// dx = dy where y > 0, else 0: the mask is taken from the forward output y (y > 0 exactly
/// where x > 0). y, dy, dx [N,C,H,W], host, contiguous; dx may alias dy. Throws
/// std::invalid_argument when dy's or dx's shape differs from y's.
void relu_backward(const Tensor4& y, const Tensor4& dy, const Tensor4& dx);

/// y = max(x, 0) element-wise on [N, F] activations (fully-connected layers). x, y [N, F], host,
/// contiguous; y may alias x (in place). Throws std::invalid_argument when y's shape differs from
/// x's or either is not contiguous.
void relu_forward(const Tensor2& x, const Tensor2& y);

/// dx = dy where y > 0, else 0, on [N, F] activations (as the Tensor4 form). y, dy, dx [N, F],
/// host, contiguous; dx may alias dy. Throws std::invalid_argument when dy's or dx's shape
/// differs from y's or one is not contiguous.
void relu_backward(const Tensor2& y, const Tensor2& dy, const Tensor2& dx);

/// y += x element-wise (the residual connection of He et al. 2016). x, y [N,C,H,W], host,
/// contiguous. Throws std::invalid_argument when x's shape differs from y's.
void add_inplace(const Tensor4& y, const Tensor4& x);

}  // namespace scaletune::kernels
