#include "gelu.hpp"

#include <cmath>
#include <numbers>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

/// sqrt(2/pi) and the cubic coefficient of the tanh form (Hendrycks & Gimpel 2016).
constexpr double kSqrt2OverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
constexpr double kCubic = 0.044715;

/// Throws unless `t` is contiguous and shaped like `like`.
void require_like(const char* op, const char* name, const Tensor2& t, const Tensor2& like) {
  detail::require_shape(op, name, t, {like.extent(0), like.extent(1)});
  detail::require_contiguous(op, name, t);
}

/// tanh(sqrt(2/pi) (x + 0.044715 x^3)); x^3 cannot overflow in double for a float x.
double gelu_tanh(double x) {
  return std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x));
}

}  // namespace

void gelu_forward(const Tensor2& x, const Tensor2& y) {
  require_like("gelu_forward", "x", x, x);
  require_like("gelu_forward", "y", y, x);
  const float* in = x.data();
  float* out = y.data();
  Kokkos::parallel_for("gelu_forward", detail::host_range(x.size()), [=](std::size_t i) {
    const double v = in[i];
    out[i] = static_cast<float>(0.5 * v * (1.0 + gelu_tanh(v)));
  });
}

void gelu_backward(const Tensor2& x, const Tensor2& dy, const Tensor2& dx) {
  require_like("gelu_backward", "x", x, x);
  require_like("gelu_backward", "dy", dy, x);
  require_like("gelu_backward", "dx", dx, x);
  const float* in = x.data();
  const float* grad_out = dy.data();
  float* grad_in = dx.data();
  Kokkos::parallel_for("gelu_backward", detail::host_range(x.size()), [=](std::size_t i) {
    const double v = in[i];
    const double t = gelu_tanh(v);
    const double du_dx = kSqrt2OverPi * (1.0 + 3.0 * kCubic * v * v);
    const double slope = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * du_dx;
    grad_in[i] = static_cast<float>(grad_out[i] * slope);
  });
}

}  // namespace scaletune::kernels
