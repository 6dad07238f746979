#pragma once
// fp32 operations rounded once each to nearest even, never fused into an FMA: on the device the
// _rn intrinsics (which nvcc does not contract), on the host the plain operators (the host ops
// are built without FMA contraction: x86-64 baseline ISA). Math bodies written with these give
// the host op's result bit for bit wherever the host evaluates the same operations in the same
// order.

#include <cmath>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// a + b, one rounding.
SCALETUNE_HOST_DEVICE inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// a - b, one rounding.
SCALETUNE_HOST_DEVICE inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

/// a * b, one rounding.
SCALETUNE_HOST_DEVICE inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

/// a / b, IEEE division (correctly rounded).
SCALETUNE_HOST_DEVICE inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

/// sqrt(a), IEEE square root (correctly rounded, as std::sqrt).
SCALETUNE_HOST_DEVICE inline float sqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

}  // namespace scaletune::kernels::cuda::detail
