#pragma once
// Per-element bodies of the optimizer kernels (optimizer.hpp): the host updates of
// kernels/host/optimizer.cpp (SGD with momentum) and kernels/host/adam.cpp (Adam) in the same
// order of the same fp32 operations, each rounded once. nvcc would contract a * b + c into one
// fused multiply-add (rounded once instead of twice), so on the device every operation is an
// explicitly rounded intrinsic (__fmul_rn, ...), which nvcc never contracts: with unscale = 1
// the device update is the host's bit for bit (the host compiler does not contract: ISO C++
// mode, -ffp-contract=off).

#include <cmath>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// a * b, a + b, a - b, a / b and sqrt(a), each rounded to nearest even once.
SCALETUNE_HOST_DEVICE inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SCALETUNE_HOST_DEVICE inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SCALETUNE_HOST_DEVICE inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
SCALETUNE_HOST_DEVICE inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
SCALETUNE_HOST_DEVICE inline float sqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

/// One parameter's SGD step (torch.optim.SGD, dampening 0, no Nesterov), the host's order:
/// g = grad * unscale + weight_decay * param; v = momentum * v + g; param -= lr * v.
SCALETUNE_HOST_DEVICE inline void sgd_momentum_update(float& param, float& velocity, float grad,
                                                      float unscale, float lr, float momentum,
                                                      float weight_decay) {
  const float g = add_rn(mul_rn(grad, unscale), mul_rn(weight_decay, param));
  velocity = add_rn(mul_rn(momentum, velocity), g);
  param = sub_rn(param, mul_rn(lr, velocity));
}

/// Adam's per-step constants, computed in double and rounded as the host adam_step does (as
/// torch from Python floats): step_size = lr / (1 - beta1^step), correction2_sqrt =
/// sqrt(1 - beta2^step).
struct AdamCorrections {
  float step_size;
  float correction2_sqrt;
};

/// AdamCorrections for step `step` (>= 1).
inline AdamCorrections adam_corrections(float lr, float beta1, float beta2, int step) {
  return AdamCorrections{
      static_cast<float>(lr / (1.0 - std::pow(static_cast<double>(beta1), step))),
      static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(beta2), step)))};
}

/// Adam's hyper-parameters as the kernel uses them.
struct AdamConstants {
  float beta1;
  float beta2;
  float eps;
  float weight_decay;
  AdamCorrections corrections;
};

/// One parameter's Adam step (Kingma & Ba 2015, algorithm 1, as torch.optim.Adam), the host's
/// order: g = grad * unscale + weight_decay * param; m = beta1 m + (1 - beta1) g;
/// v = beta2 v + (1 - beta2) g g; param -= step_size * m / (sqrt(v) / correction2_sqrt + eps).
SCALETUNE_HOST_DEVICE inline void adam_update(float& param, float& m, float& v, float grad,
                                              float unscale, const AdamConstants& c) {
  const float g = add_rn(mul_rn(grad, unscale), mul_rn(c.weight_decay, param));
  m = add_rn(mul_rn(c.beta1, m), mul_rn(1.0f - c.beta1, g));
  v = add_rn(mul_rn(c.beta2, v), mul_rn(mul_rn(1.0f - c.beta2, g), g));
  const float denom = add_rn(div_rn(sqrt_rn(v), c.corrections.correction2_sqrt), c.eps);
  param = sub_rn(param, div_rn(mul_rn(c.corrections.step_size, m), denom));
}

}  // namespace scaletune::kernels::cuda::detail
