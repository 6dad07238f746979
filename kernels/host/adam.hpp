#pragma once
// Adam updates on flat parameter buffers (torch.optim.Adam's form).

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Hyper-parameters of adam_step; the defaults are torch.optim.Adam's.
struct AdamOptions {
  float lr = 1e-3f;           ///< learning rate, >= 0
  float beta1 = 0.9f;         ///< decay of the first-moment average, in [0, 1)
  float beta2 = 0.999f;       ///< decay of the second-moment average, in [0, 1)
  float eps = 1e-8f;          ///< added to the bias-corrected sqrt(v), >= 0
  float weight_decay = 0.0f;  ///< L2 penalty added to the gradient (Adam, not AdamW), >= 0
};

/// One Adam step (Kingma & Ba 2015, "Adam", algorithm 1, as torch.optim.Adam computes it):
/// g = grads + weight_decay * params; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
/// params -= lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps).
/// params, m and v are updated in place, grads is only read; m and v start at zero and step
/// counts from 1. All [n] flat, host, contiguous. Throws std::invalid_argument when grads', m's
/// or v's length differs from params', step < 1 or an option is out of its range.
void adam_step(const Vector& params, const Vector& grads, const Vector& m, const Vector& v,
               int step, const AdamOptions& opt);

}  // namespace scaletune::kernels
