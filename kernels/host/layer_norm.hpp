#pragma once
// Layer normalisation over the feature dimension of [N, F] token rows, forward and backward.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// y[n, f] = (x[n, f] - mean[n]) * rstd[n] * gamma[f] + beta[f], with mean[n] and the biased
/// variance var[n] over the F features of row n and rstd[n] = 1 / sqrt(var[n] + eps) (Ba, Kiros,
/// Hinton 2016, "Layer Normalization", eq. 4; torch.nn.LayerNorm, eps default 1e-5). The row
/// statistics are accumulated in double (two passes) and written to the caller-owned mean and
/// rstd for layer_norm_backward. x, y [N, F]; gamma, beta [F]; mean, rstd [N]; all host,
/// contiguous; y may alias x (in place). Throws std::invalid_argument when a shape does not
/// match, F is 0 or eps is not > 0.
void layer_norm_forward(const Tensor2& x, const Vector& gamma, const Vector& beta, const Tensor2& y,
                        const Vector& mean, const Vector& rstd, float eps = 1e-5f);

/// Gradients of layer_norm_forward, all overwritten, with xhat = (x - mean) * rstd and
/// g = dy * gamma:  dx[n, f] = rstd[n] * (g[n, f] - mean_f g[n, :] - xhat[n, f] *
/// mean_f (g * xhat)[n, :]);  dgamma[f] = sum_n dy[n, f] * xhat[n, f];  dbeta[f] = sum_n
/// dy[n, f] (chain rule through eq. 4 of Ba et al. 2016; row means and column sums in double).
/// mean and rstd are those the forward wrote for this x; they are floats (as PyTorch saves
/// them), so for rows with |mean| >> std xhat carries mean's float rounding. x, dy, dx [N, F];
/// gamma, dgamma, dbeta [F]; mean, rstd [N]; all host, contiguous; dx may alias dy. Throws
/// std::invalid_argument when a shape does not match or dx aliases x.
void layer_norm_backward(const Tensor2& x, const Vector& gamma, const Tensor2& dy,
                         const Vector& mean, const Vector& rstd, const Tensor2& dx,
                         const Vector& dgamma, const Vector& dbeta);

}  // namespace scaletune::kernels
