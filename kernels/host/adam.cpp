#include "adam.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kOp = "adam_step";

/// Throws std::invalid_argument unless 0 <= value (and value < 1 when below_one).
void require_range(const char* name, float value, bool below_one) {
  const bool ok = value >= 0.0f && (!below_one || value < 1.0f);
  if (!ok)
    throw std::invalid_argument(std::string(kOp) + ": " + name + " is " + std::to_string(value) +
                                (below_one ? ", expected in [0, 1)" : ", expected >= 0"));
}

void require_options(const AdamOptions& opt, int step) {
  require_range("lr", opt.lr, false);
  require_range("beta1", opt.beta1, true);
  require_range("beta2", opt.beta2, true);
  require_range("eps", opt.eps, false);
  require_range("weight_decay", opt.weight_decay, false);
  if (step < 1)
    throw std::invalid_argument(std::string(kOp) + ": step is " + std::to_string(step) +
                                ", expected >= 1 (steps count from 1)");
}

}  // namespace

void adam_step(const Vector& params, const Vector& grads, const Vector& m, const Vector& v,
               int step, const AdamOptions& opt) {
  const std::size_t n = params.extent(0);
  detail::require_shape(kOp, "grads", grads, {n});
  detail::require_shape(kOp, "m", m, {n});
  detail::require_shape(kOp, "v", v, {n});
  require_options(opt, step);
  // The bias corrections in double, as torch computes them from Python floats.
  const auto step_size =
      static_cast<float>(opt.lr / (1.0 - std::pow(static_cast<double>(opt.beta1), step)));
  const auto correction2_sqrt =
      static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(opt.beta2), step)));
  const float beta1 = opt.beta1, beta2 = opt.beta2, eps = opt.eps;
  const float weight_decay = opt.weight_decay;
  Kokkos::parallel_for("adam_step", detail::host_range(n), [=](std::size_t i) {
    const float g = grads(i) + weight_decay * params(i);
    m(i) = beta1 * m(i) + (1.0f - beta1) * g;
    v(i) = beta2 * v(i) + (1.0f - beta2) * g * g;
    params(i) -= step_size * m(i) / (std::sqrt(v(i)) / correction2_sqrt + eps);
  });
}

}  // namespace scaletune::kernels
