#pragma once
// The short profile behind the proportional and auto batch splits: how long one forward +
// backward micro-batch of each size takes on this rank, measured on the real kernels.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/core/hetero_plan.hpp"
#include "kernels/ops/backend.hpp"
#include "kernels/transformer/gpt_model.hpp"

namespace scaletune::kernels {

/// Micro-batch sizes a profile times: 1, 2, 4, ... below `largest`, then `largest`. Throws
/// std::invalid_argument when largest < 1.
std::vector<int> profile_sizes(int largest);

/// The least-squares line t = a + b m through a profile's (micro-batch, time) points, evaluated at
/// its micro-batches: a fixed cost per micro-batch plus a cost per sample, so the planner does
/// not chase the noise of single measurements. a is clamped to >= 0 (then b = sum t m / sum m^2,
/// the line through the origin) and b to >= 1e-3 of the mean time per sample. One point: the
/// profile unchanged. Throws std::invalid_argument on a malformed profile (micro_batch_time_s's
/// rules).
core::RankProfile affine_profile(const core::RankProfile& measured);

/// A model of `shape` (up to shape.max_micro_batch samples) whose blocks all read one block's
/// parameters (initialised for `seed`): the same ops on the same backend and sizes as the real
/// model, in a fraction of its memory, for timing micro-batches.
class MicroBatchProfiler {
 public:
  /// Allocates the model, its parameters and token ids on `backend` through a ledger of its own
  /// with `budget_bytes` (0: no limit), freed with the profiler; `device` (may be null: the
  /// host, or tests) is fenced around every timed call. backend and device must outlive the
  /// profiler. Throws std::invalid_argument on a bad shape, std::bad_alloc
  /// (core::MemoryBudgetExceeded past the budget) when it does not fit.
  MicroBatchProfiler(ops::Backend& backend, const GptShape& shape, std::uint64_t seed,
                     core::Device* device = nullptr, std::int64_t budget_bytes = 0);
  ~MicroBatchProfiler();
  MicroBatchProfiler(const MicroBatchProfiler&) = delete;
  MicroBatchProfiler& operator=(const MicroBatchProfiler&) = delete;

  /// Times one forward + backward micro-batch (GptModel::train_micro_batch) of each size in
  /// `sizes` (ascending, each in [1, shape.max_micro_batch]): one untimed call of the largest
  /// size first, then `repeats` (>= 1) rounds of one call per size, so a slow spell of the
  /// machine hits every size alike; every call, the untimed one included (1 + repeats *
  /// sizes.size() in all), starts after `before_each` (e.g. a
  /// barrier, so ranks that share a core run their calls at the same time and each sees its
  /// share of the core); the device is fenced before each clock read, so a call's time is its
  /// work's, not its launches'; a size's time is the median of its calls, its spread
  /// (p75 - p25) / median of them.
  /// Returns the sizes, times (s) and spreads; capacity_bytes is left 0. Throws
  /// std::invalid_argument on bad sizes or repeats.
  core::RankProfile run(const std::vector<int>& sizes, int repeats,
                        const std::function<void()>& before_each);

  /// Bytes MicroBatchProfiler(shape, ...) allocates: the shared block's parameters and
  /// gradients with the embeddings and ln_f (and their 16-bit working copy under 16-bit
  /// activations), the model's activations and the token ids.
  static std::int64_t bytes(const GptShape& shape);

 private:
  struct State;
  GptShape m_shape;
  std::uint64_t m_seed;
  core::Device* m_device;
  std::unique_ptr<State> m_state;
};

}  // namespace scaletune::kernels
