#pragma once
// Optimizer updates on flat parameter buffers.

#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

using ops::SgdOptions;

/// One SGD step: params and velocity updated in place from grads. All [n] flat, host,
/// contiguous. Throws std::invalid_argument when grads' or velocity's length differs from
/// params'.
void sgd_momentum_step(const Vector& params, const Vector& grads, const Vector& velocity,
                       const SgdOptions& opt);

}  // namespace scaletune::kernels
