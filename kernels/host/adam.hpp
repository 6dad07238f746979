#pragma once
// Adam updates on flat parameter buffers (torch.optim.Adam's form).

#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

using ops::AdamOptions;

/// One Adam step (Kingma & Ba 2015, "Adam", algorithm 1, as torch.optim.Adam computes it):
/// g = grads + weight_decay * params; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
/// params -= lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps).
/// params, m and v are updated in place, grads is only read; m and v start at zero and step
/// counts from 1. All [n] flat, host, contiguous. Throws std::invalid_argument when grads', m's
/// or v's length differs from params', step < 1 or an option is out of its range.
void adam_step(const Vector& params, const Vector& grads, const Vector& m, const Vector& v,
               int step, const AdamOptions& opt);

}  // namespace scaletune::kernels
