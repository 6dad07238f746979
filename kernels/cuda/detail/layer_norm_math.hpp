#pragma once
// Per-element bodies of the LayerNorm kernels (layer_norm.hpp), the formulas of the host ops
// (kernels/host/layer_norm.cpp; Ba, Kiros, Hinton 2016, eq. 4) in fp32: the host accumulates
// the row statistics and the backward's row means and column sums in double, the kernels in
// fp32 (two passes for the variance, as the host). To keep fp32 sums accurate when a row's mean
// is large against its spread, the forward sums the shifted values x - x[0] (exact where x is
// within a factor of 2 of x[0]): mean = x[0] + mean(x - x[0]) (the shifted-data algorithm,
// Chan, Golub, LeVeque 1983), and normalises (x - x[0]) - mean(x - x[0]).

#include <cmath>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// rstd = 1 / sqrt(var + eps) with var = sum_sq / cols, the biased variance from the sum of
/// squared deviations from the row mean.
SCALETUNE_HOST_DEVICE inline float layer_norm_rstd(float sum_sq, float cols, float eps) {
  return 1.0f / sqrtf(sum_sq / cols + eps);
}

/// xhat = (x - mean) * rstd.
SCALETUNE_HOST_DEVICE inline float layer_norm_xhat(float x, float mean, float rstd) {
  return (x - mean) * rstd;
}

/// y = xhat * gamma + beta.
SCALETUNE_HOST_DEVICE inline float layer_norm_output(float x, float mean, float rstd, float gamma,
                                                     float beta) {
  return layer_norm_xhat(x, mean, rstd) * gamma + beta;
}

/// dx = rstd * (g - mean_g - xhat * mean_g_xhat), g = dy * gamma, with mean_g and mean_g_xhat
/// the row means of g and g * xhat.
SCALETUNE_HOST_DEVICE inline float layer_norm_input_grad(float g, float xhat, float rstd,
                                                         float mean_g, float mean_g_xhat) {
  return rstd * (g - mean_g - xhat * mean_g_xhat);
}

}  // namespace scaletune::kernels::cuda::detail
