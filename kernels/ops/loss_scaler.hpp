#pragma once
// Dynamic loss scaling for fp16 training (Micikevicius et al., "Mixed Precision Training",
// ICLR 2018, section 3.2; the schedule of torch.cuda.amp.GradScaler): the loss gradient is
// multiplied by S so small fp16 gradients do not flush to zero, the fp32 master update divides
// by S again, and a step whose gradients overflowed is skipped and S halved; after
// growth_interval good steps in a row S doubles.

#include <cstdint>

#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::ops {

/// GradScaler's defaults.
struct LossScaleOptions {
  float initial_scale = 65536.0f;  ///< S at the start, 2^16
  float growth_factor = 2.0f;      ///< S *= this after growth_interval good steps
  float backoff_factor = 0.5f;     ///< S *= this after a step that overflowed
  int growth_interval = 2000;      ///< good steps in a row before S grows
};

/// One rank's loss scale. Disabled (fp32 and bf16 training): grad_scale() 1, nothing checked,
/// nothing skipped. Enabled (fp16): per step, the workload scales the loss gradient by
/// grad_scale(), calls check(grads) on the all-reduced fp32 gradients (identical on every rank,
/// so every rank takes the same decision), passes master_update() to the optimizer and calls
/// end_step(), which waits for the device to read the overflow flag.
class LossScaler {
 public:
  /// Allocates the int32 [1] overflow flag through `ledger` when enabled.
  LossScaler(MemoryLedger& ledger, bool enabled, const LossScaleOptions& options = {});

  bool enabled() const { return m_enabled; }
  /// S, the factor the loss gradient is multiplied by (1 when disabled).
  float grad_scale() const { return m_scale; }
  /// Sets the overflow flag when any of `grads` (fp32) is NaN or infinite. No-op when disabled.
  void check(const Tensor& grads);
  /// Makes the flag the same on every rank of `comm` (an all-reduce sum of it: set on one rank,
  /// set on all), for gradients that are not all-reduced, such as model-parallel embeddings' (as
  /// torch's ShardedGradScaler all-reduces found_inf). Collective; comm's memory space must be
  /// the backend's. No-op when disabled.
  void agree(core::Communicator& comm);
  /// The optimizer's extras: unscale 1 / S and the overflow flag (none when disabled), and the
  /// 16-bit `copy` of the parameters (may be "none").
  MasterUpdate master_update(const Tensor& copy) const;
  /// Ends the step: reads and clears the flag (waits for the device), counts a skipped step and
  /// backs the scale off, or counts a good one and grows the scale after growth_interval of
  /// them. Returns true when the step was skipped (its master update did nothing). No-op
  /// returning false when disabled.
  bool end_step();
  /// Steps skipped for overflowing gradients so far.
  std::int64_t skipped_steps() const { return m_skipped; }

 private:
  Backend& m_backend;
  bool m_enabled;
  LossScaleOptions m_options;
  float m_scale;
  Tensor m_flag;
  int m_good_steps = 0;
  std::int64_t m_skipped = 0;
};

}  // namespace scaletune::ops
