#pragma once
// Plain settings the ops of every backend take: how gradients are written, how bags are pooled,
// the optimizers' hyper-parameters and the dropout mask. No memory, no backend.

#include <cstdint>

namespace scaletune::ops {

/// Whether a backward pass overwrites parameter gradients or adds to them (gradient
/// accumulation over micro-batches: the caller zeroes once per step).
enum class GradMode { overwrite, accumulate };

/// How an embedding bag's rows are combined.
enum class Pooling {
  kSum,   ///< out[b] = sum of the bag's rows
  kMean,  ///< out[b] = sum / bag length; an empty bag gives 0 (as torch.nn.EmbeddingBag)
};

/// SGD with momentum and L2 weight decay, PyTorch's form (torch.optim.SGD, dampening 0,
/// no Nesterov): g = grad + weight_decay * param; v = momentum * v + g; param -= lr * v.
/// With v starting at zero the first step gives v = g, as PyTorch's first step does.
struct SgdOptions {
  float lr = 0.1f;             ///< learning rate
  float momentum = 0.9f;       ///< momentum factor
  float weight_decay = 5e-5f;  ///< L2 penalty coefficient
};

/// Hyper-parameters of Adam; the defaults are torch.optim.Adam's.
struct AdamOptions {
  float lr = 1e-3f;           ///< learning rate, >= 0
  float beta1 = 0.9f;         ///< decay of the first-moment average, in [0, 1)
  float beta2 = 0.999f;       ///< decay of the second-moment average, in [0, 1)
  float eps = 1e-8f;          ///< added to the bias-corrected sqrt(v), >= 0
  float weight_decay = 0.0f;  ///< L2 penalty added to the gradient (Adam, not AdamW), >= 0
};

/// Options of FBGEMM's rowwise Adagrad.
struct RowwiseAdagradOptions {
  float lr = 0.01f;   ///< learning rate
  float eps = 1e-8f;  ///< added to the denominator
};

/// Which mask one dropout call draws. Element (n, f) of a local [N, F] tensor is global
/// element e = (first_row + n) * F + f; it is kept when the top 53 bits of a SplitMix64 hash
/// of (seed, step, e), read as a fraction in [0, 1), are >= p (SplitMix64: Steele, Lea, Flood
/// 2014), so every rank holding that row draws the same bit. Use a new step per iteration and a
/// distinct seed per dropout site.
struct DropoutMask {
  float p = 0.0f;              ///< drop probability, in [0, 1)
  std::uint64_t seed = 0;      ///< run seed ([run] seed of the job) mixed with the site
  std::uint64_t step = 0;      ///< training iteration
  std::int64_t first_row = 0;  ///< global index of the local tensor's row 0, >= 0
};

}  // namespace scaletune::ops
