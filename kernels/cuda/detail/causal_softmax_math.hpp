#pragma once
// Per-element bodies of the causal softmax kernels (causal_softmax.hpp), as the host ops
// (kernels/host/causal_softmax.cpp) compute them: row i of a score matrix sees keys j <= i,
// its entries beyond are 0 exactly. The host sums the exponentials and the backward's dot
// product in double, the kernels in fp32; the host stores exp(s - m) and scales it by
// float(1 / sum) in place, the kernels compute exp(s - m) * (1 / sum) in one store.

#include <cmath>
#include <cstdint>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Whether key j is visible to query i under the causal mask.
SCALETUNE_HOST_DEVICE inline bool causal_visible(std::int64_t i, std::int64_t j) {
  return j <= i;
}

/// p = exp(score - row_max) * inv_sum, inv_sum = 1 / sum_{j <= i} exp(s_j - row_max).
SCALETUNE_HOST_DEVICE inline float causal_softmax_prob(float score, float row_max, float inv_sum) {
  return expf(score - row_max) * inv_sum;
}

/// dscore = p * (dp - dot), dot = sum_{j <= i} p_j dp_j (the softmax Jacobian-vector product).
SCALETUNE_HOST_DEVICE inline float causal_softmax_grad(float p, float dp, float dot) {
  return p * (dp - dot);
}

}  // namespace scaletune::kernels::cuda::detail
