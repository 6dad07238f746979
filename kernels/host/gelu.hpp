#pragma once
// GELU activation (the tanh approximation GPT-2 uses), forward and backward.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) element-wise: the tanh form of GELU
/// (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units", section 2; GPT-2's gelu and
/// torch.nn.GELU(approximate="tanh")), not the exact x Phi(x). Evaluated in double and rounded,
/// so it stays finite for every finite x (y -> x as x -> +inf, y -> 0 as x -> -inf).
/// x, y [N, F], host, contiguous; y may alias x (in place). Throws std::invalid_argument when
/// y's shape differs from x's or either is not contiguous.
void gelu_forward(const Tensor2& x, const Tensor2& y);

/// dx = dy * d/dx gelu(x), with t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x^3):
/// d/dx gelu(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)
/// (the derivative of the tanh form of gelu_forward), in double. x, dy, dx [N, F], host,
/// contiguous; dx may alias dy. Throws std::invalid_argument when dy's or dx's shape differs
/// from x's or one is not contiguous.
void gelu_backward(const Tensor2& x, const Tensor2& dy, const Tensor2& dx);

}  // namespace scaletune::kernels
