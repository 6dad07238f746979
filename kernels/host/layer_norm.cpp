#include "layer_norm.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kForward = "layer_norm_forward";
constexpr const char* kBackward = "layer_norm_backward";

/// Throws unless x is [N, F] with F >= 1 and contiguous.
void require_rows(const char* op, const Tensor2& x) {
  if (x.extent(1) == 0)
    throw std::invalid_argument(std::string(op) + ": x is " + detail::shape_string(x, 2) +
                                ", expected at least one feature");
  detail::require_contiguous(op, "x", x);
}

/// Mean over the F features of row n of x, in double.
double row_mean(const Tensor2& x, std::size_t n) {
  double sum = 0.0;
  for (std::size_t f = 0; f < x.extent(1); ++f) sum += x(n, f);
  return sum / static_cast<double>(x.extent(1));
}

/// Biased variance of row n of x about `mean`, in double (the second of two passes).
double row_variance(const Tensor2& x, std::size_t n, double mean) {
  double sum_sq = 0.0;
  for (std::size_t f = 0; f < x.extent(1); ++f) {
    const double d = x(n, f) - mean;
    sum_sq += d * d;
  }
  return sum_sq / static_cast<double>(x.extent(1));
}

/// dgamma[f] = sum_n dy * xhat, dbeta[f] = sum_n dy: one column per iteration, in double.
void parameter_gradients(const Tensor2& x, const Tensor2& dy, const Vector& mean,
                         const Vector& rstd, const Vector& dgamma, const Vector& dbeta) {
  const std::size_t rows = x.extent(0);
  Kokkos::parallel_for("layer_norm_param_grads", detail::host_range(x.extent(1)),
                       [=](std::size_t f) {
                         double sum_dy = 0.0;
                         double sum_dy_xhat = 0.0;
                         for (std::size_t n = 0; n < rows; ++n) {
                           const double g = dy(n, f);
                           sum_dy += g;
                           sum_dy_xhat += g * (double{x(n, f)} - mean(n)) * rstd(n);
                         }
                         dgamma(f) = static_cast<float>(sum_dy_xhat);
                         dbeta(f) = static_cast<float>(sum_dy);
                       });
}

/// dx for every row (the formula of layer_norm_backward); reads row n of dy fully before
/// writing row n of dx, so dx may alias dy.
void input_gradient(const Tensor2& x, const Vector& gamma, const Tensor2& dy, const Vector& mean,
                    const Vector& rstd, const Tensor2& dx) {
  const std::size_t features = x.extent(1);
  const double inv_features = 1.0 / static_cast<double>(features);
  Kokkos::parallel_for("layer_norm_input_grad", detail::host_range(x.extent(0)),
                       [=](std::size_t n) {
                         const double mu = mean(n);
                         const double r = rstd(n);
                         double sum_g = 0.0;
                         double sum_g_xhat = 0.0;
                         for (std::size_t f = 0; f < features; ++f) {
                           const double g = double{dy(n, f)} * gamma(f);
                           sum_g += g;
                           sum_g_xhat += g * (x(n, f) - mu) * r;
                         }
                         const double mean_g = sum_g * inv_features;
                         const double mean_g_xhat = sum_g_xhat * inv_features;
                         for (std::size_t f = 0; f < features; ++f) {
                           const double g = double{dy(n, f)} * gamma(f);
                           const double xhat = (x(n, f) - mu) * r;
                           dx(n, f) = static_cast<float>(r * (g - mean_g - xhat * mean_g_xhat));
                         }
                       });
}

}  // namespace

void layer_norm_forward(const Tensor2& x, const Vector& gamma, const Vector& beta, const Tensor2& y,
                        const Vector& mean, const Vector& rstd, float eps) {
  require_rows(kForward, x);
  const std::size_t rows = x.extent(0);
  const std::size_t features = x.extent(1);
  detail::require_shape(kForward, "gamma", gamma, {features});
  detail::require_shape(kForward, "beta", beta, {features});
  detail::require_shape(kForward, "y", y, {rows, features});
  detail::require_contiguous(kForward, "y", y);
  detail::require_shape(kForward, "mean", mean, {rows});
  detail::require_shape(kForward, "rstd", rstd, {rows});
  if (!(eps > 0.0f))
    throw std::invalid_argument(std::string(kForward) + ": eps is " + std::to_string(eps) +
                                ", expected > 0");

  const double eps_d = eps;
  Kokkos::parallel_for("layer_norm_forward", detail::host_range(rows), [=](std::size_t n) {
    const double mu = row_mean(x, n);
    const double r = 1.0 / std::sqrt(row_variance(x, n, mu) + eps_d);
    mean(n) = static_cast<float>(mu);
    rstd(n) = static_cast<float>(r);
    for (std::size_t f = 0; f < features; ++f)
      y(n, f) = static_cast<float>((x(n, f) - mu) * r * gamma(f) + beta(f));
  });
}

void layer_norm_backward(const Tensor2& x, const Vector& gamma, const Tensor2& dy,
                         const Vector& mean, const Vector& rstd, const Tensor2& dx,
                         const Vector& dgamma, const Vector& dbeta) {
  require_rows(kBackward, x);
  const std::size_t rows = x.extent(0);
  const std::size_t features = x.extent(1);
  detail::require_shape(kBackward, "gamma", gamma, {features});
  detail::require_shape(kBackward, "dy", dy, {rows, features});
  detail::require_shape(kBackward, "mean", mean, {rows});
  detail::require_shape(kBackward, "rstd", rstd, {rows});
  detail::require_shape(kBackward, "dx", dx, {rows, features});
  detail::require_shape(kBackward, "dgamma", dgamma, {features});
  detail::require_shape(kBackward, "dbeta", dbeta, {features});
  detail::require_contiguous(kBackward, "dy", dy);
  detail::require_contiguous(kBackward, "dx", dx);
  detail::require_distinct(kBackward, "x", x, "dx", dx);

  // The parameter gradients read every row of dy, so they run before dx (which may alias dy).
  parameter_gradients(x, dy, mean, rstd, dgamma, dbeta);
  Kokkos::fence();
  input_gradient(x, gamma, dy, mean, rstd, dx);
}

}  // namespace scaletune::kernels
