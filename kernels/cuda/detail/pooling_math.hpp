#pragma once
// Per-element bodies of the global-average-pooling kernels (kernels/cuda/pooling.cu) and of
// their host reference (kernels/host/pooling.cpp): the forward's final scaling and the
// backward's value, with the host's constants.

#include <cstdint>

#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// The forward's mean from the fp32 sum of a plane of `area` = H * W values: float(sum * (1 /
/// area)) with the factor in double, as the host scales its (double) sum.
SCALETUNE_HOST_DEVICE inline float plane_mean(float sum, std::int64_t area) {
  return static_cast<float>(static_cast<double>(sum) * (1.0 / static_cast<double>(area)));
}

/// The backward's factor 1 / area in fp32 (host: 1.0f / float(H * W)).
SCALETUNE_HOST_DEVICE inline float inverse_area(std::int64_t area) {
  return div_rn(1.0f, static_cast<float>(area));
}

/// dx of every element of a plane: dy * inverse_area (host: dy(b, c) * inv_area), bit for bit.
SCALETUNE_HOST_DEVICE inline float avg_pool_gradient(float dy, float inv_area) {
  return mul_rn(dy, inv_area);
}

}  // namespace scaletune::kernels::cuda::detail
