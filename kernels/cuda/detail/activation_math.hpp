#pragma once
// Per-element bodies of the activation and element-wise kernels (activation.hpp,
// elementwise.hpp), as the host ops of kernels/host/activation.cpp compute them, in fp32 on
// values loaded from and stored to the element type T (float, Fp16, Bf16).

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// max(x, 0), with NaN -> 0 (the host's `x > 0 ? x : 0`).
template <class T>
SCALETUNE_HOST_DEVICE T relu_element(T x) {
  const float v = to_float(x);
  return from_float<T>(v > 0.0f ? v : 0.0f);
}

/// dy where the forward output y > 0, else 0.
template <class T>
SCALETUNE_HOST_DEVICE T relu_grad_element(T y, T dy) {
  return to_float(y) > 0.0f ? dy : from_float<T>(0.0f);
}

/// y + x in fp32, rounded to T.
template <class T>
SCALETUNE_HOST_DEVICE T add_element(T y, T x) {
  return from_float<T>(to_float(y) + to_float(x));
}

/// alpha * x in fp32, rounded to T.
template <class T>
SCALETUNE_HOST_DEVICE T scale_element(float alpha, T x) {
  return from_float<T>(alpha * to_float(x));
}

/// y + bias in fp32 (bias an fp32 parameter), rounded to T.
template <class T>
SCALETUNE_HOST_DEVICE T bias_add_element(T y, float bias) {
  return from_float<T>(to_float(y) + bias);
}

}  // namespace scaletune::kernels::cuda::detail
