#pragma once
// Optimizer updates on flat parameter buffers.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// SGD with momentum and L2 weight decay, PyTorch's form (torch.optim.SGD, dampening 0,
/// no Nesterov): g = grad + weight_decay * param; v = momentum * v + g; param -= lr * v.
/// With v starting at zero the first step gives v = g, as PyTorch's first step does.
struct SgdOptions {
  float lr = 0.1f;             ///< learning rate
  float momentum = 0.9f;       ///< momentum factor
  float weight_decay = 5e-5f;  ///< L2 penalty coefficient
};

/// One SGD step: params and velocity updated in place from grads. All [n] flat, host,
/// contiguous. Throws std::invalid_argument when grads' or velocity's length differs from
/// params'.
void sgd_momentum_step(const Vector& params, const Vector& grads, const Vector& velocity,
                       const SgdOptions& opt);

}  // namespace scaletune::kernels
