#include "optimizer.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/optimizer_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// The mixed-precision parts of a step as the kernels see them; C is param_copy's type.
template <class C>
struct StepControl {
  using CopyType = C;
  float unscale;
  const int* found_nonfinite;
  C* copy;

  __device__ bool skipped() const { return found_nonfinite != nullptr && *found_nonfinite != 0; }
  __device__ void store_copy(std::int64_t i, float param) const {
    if (copy != nullptr) copy[i] = detail::from_float<C>(param);
  }
};

template <class C>
struct SgdMomentum {
  ops::SgdOptions settings;
  StepControl<C> control;
  float* params;
  const float* grads;
  float* velocity;
  __device__ void operator()(std::int64_t i) const {
    if (control.skipped()) return;
    float p = params[i], vel = velocity[i];
    detail::sgd_momentum_update(p, vel, grads[i], control.unscale, settings.lr, settings.momentum,
                                settings.weight_decay);
    params[i] = p;
    velocity[i] = vel;
    control.store_copy(i, p);
  }
};

template <class C>
struct Adam {
  detail::AdamConstants constants;
  StepControl<C> control;
  float* params;
  const float* grads;
  float* m;
  float* v;
  __device__ void operator()(std::int64_t i) const {
    if (control.skipped()) return;
    float p = params[i], mi = m[i], vi = v[i];
    detail::adam_update(p, mi, vi, grads[i], control.unscale, constants);
    params[i] = p;
    m[i] = mi;
    v[i] = vi;
    control.store_copy(i, p);
  }
};

/// Calls f(StepControl<C>) with C the element type of mixed.param_copy_type.
template <class F>
void with_control(const char* op, const MixedPrecisionStep& mixed, F&& f) {
  detail::dispatch_activation(mixed.param_copy_type, op, "param_copy", [&](auto tag) {
    using C = typename decltype(tag)::type;
    f(StepControl<C>{mixed.unscale, mixed.found_nonfinite, static_cast<C*>(mixed.param_copy)});
  });
}

/// Throws unless 0 <= value (and value < 1 when below_one), as the host adam_step.
void require_range(const char* op, const char* name, float value, bool below_one) {
  if (value >= 0.0f && (!below_one || value < 1.0f)) return;
  throw std::invalid_argument(std::string(op) + ": " + name + " is " + std::to_string(value) +
                              (below_one ? ", expected in [0, 1)" : ", expected >= 0"));
}

}  // namespace

void sgd_momentum_step(cudaStream_t stream, std::int64_t count, const ops::SgdOptions& settings,
                       const MixedPrecisionStep& mixed, float* params, const float* grads,
                       float* velocity) {
  constexpr const char* kOp = "sgd_momentum_step";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count,
                           {{"params", params}, {"grads", grads}, {"velocity", velocity}});
  with_control(kOp, mixed, [&](auto control) {
    using C = typename decltype(control)::CopyType;
    detail::for_each_index(stream, count,
                           SgdMomentum<C>{settings, control, params, grads, velocity});
  });
}

void adam_step(cudaStream_t stream, std::int64_t count, int step, const ops::AdamOptions& settings,
               const MixedPrecisionStep& mixed, float* params, const float* grads, float* m,
               float* v) {
  constexpr const char* kOp = "adam_step";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"params", params}, {"grads", grads}, {"m", m}, {"v", v}});
  require_range(kOp, "lr", settings.lr, false);
  require_range(kOp, "beta1", settings.beta1, true);
  require_range(kOp, "beta2", settings.beta2, true);
  require_range(kOp, "eps", settings.eps, false);
  require_range(kOp, "weight_decay", settings.weight_decay, false);
  if (step < 1)
    throw std::invalid_argument(std::string(kOp) + ": step is " + std::to_string(step) +
                                ", expected >= 1 (steps count from 1)");
  const detail::AdamConstants constants{
      settings.beta1, settings.beta2, settings.eps, settings.weight_decay,
      detail::adam_corrections(settings.lr, settings.beta1, settings.beta2, step)};
  with_control(kOp, mixed, [&](auto control) {
    using C = typename decltype(control)::CopyType;
    detail::for_each_index(stream, count, Adam<C>{constants, control, params, grads, m, v});
  });
}

}  // namespace scaletune::kernels::cuda
