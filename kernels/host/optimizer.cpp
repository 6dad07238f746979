#include "optimizer.hpp"

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

void sgd_momentum_step(const Vector& params, const Vector& grads, const Vector& velocity,
                       const SgdOptions& opt) {
  constexpr const char* kOp = "sgd_momentum_step";
  const std::size_t n = params.extent(0);
  detail::require_shape(kOp, "grads", grads, {n});
  detail::require_shape(kOp, "velocity", velocity, {n});
  const float lr = opt.lr;
  const float momentum = opt.momentum;
  const float weight_decay = opt.weight_decay;
  Kokkos::parallel_for("sgd_momentum_step", detail::host_range(n), [=](std::size_t i) {
    const float g = grads(i) + weight_decay * params(i);
    velocity(i) = momentum * velocity(i) + g;
    params(i) -= lr * velocity(i);
  });
}

}  // namespace scaletune::kernels
