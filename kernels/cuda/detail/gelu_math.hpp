#pragma once
// Per-element bodies of the GELU kernels (gelu.hpp): the tanh form of the host ops
// (kernels/host/gelu.cpp), y = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), and its
// derivative, evaluated in fp32 through the identity 0.5 (1 + tanh(u)) = sigmoid(2u), which
// needs no cancellation for negative x and no overflow: with a = exp(-2|u|) in (0, 1],
// sigmoid(2u) = 1 / (1 + a) for u >= 0 and a / (1 + a) otherwise. Then
//   gelu(x) = x s,  d gelu / dx = s + 2 x s (1 - s) du/dx,  du/dx = sqrt(2/pi) (1 + 3 * 0.044715
//   x^2),
// since 0.5 (1 - tanh(u)^2) = 2 s (1 - s). The host evaluates the tanh form in double; these
// agree with it to a few fp32 ulps.

#include <cmath>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// sqrt(2/pi) and the cubic coefficient of the tanh form (Hendrycks & Gimpel 2016).
inline constexpr float kGeluSqrt2OverPi = 0.7978845608028654f;
inline constexpr float kGeluCubic = 0.044715f;

/// sigmoid(2u) and 1 - sigmoid(2u) for u = sqrt(2/pi) (x + 0.044715 x^3).
struct GeluSigmoid {
  float s;
  float one_minus_s;
};

/// GeluSigmoid of x (u = +-inf for |x| beyond ~7e12, where x^3 overflows: s is then 1 or 0).
SCALETUNE_HOST_DEVICE inline GeluSigmoid gelu_sigmoid(float x) {
  const float u = kGeluSqrt2OverPi * (x + kGeluCubic * x * x * x);
  const float a = expf(-2.0f * fabsf(u));
  const float big = 1.0f / (1.0f + a);
  const float small = a / (1.0f + a);
  return u >= 0.0f ? GeluSigmoid{big, small} : GeluSigmoid{small, big};
}

/// gelu(x) = 0.5 x (1 + tanh(u)) = x sigmoid(2u).
SCALETUNE_HOST_DEVICE inline float gelu(float x) {
  return x * gelu_sigmoid(x).s;
}

/// d gelu / dx at x. The curvature term vanishes where s (1 - s) underflows to 0 (|x| > ~5),
/// and is skipped there so that x^2 overflowing (|x| > ~1.8e19) cannot make 0 * inf.
SCALETUNE_HOST_DEVICE inline float gelu_slope(float x) {
  const GeluSigmoid g = gelu_sigmoid(x);
  const float q = g.s * g.one_minus_s;
  if (q == 0.0f) return g.s;
  const float du_dx = kGeluSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
  return g.s + 2.0f * x * q * du_dx;
}

/// The forward kernel's body on element type T.
template <class T>
SCALETUNE_HOST_DEVICE T gelu_element(T x) {
  return from_float<T>(gelu(to_float(x)));
}

/// The backward kernel's body: dy * gelu'(x) on element type T.
template <class T>
SCALETUNE_HOST_DEVICE T gelu_grad_element(T x, T dy) {
  return from_float<T>(to_float(dy) * gelu_slope(to_float(x)));
}

}  // namespace scaletune::kernels::cuda::detail
