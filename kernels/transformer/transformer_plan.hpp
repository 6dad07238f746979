#pragma once
// How a transformer configuration runs on its ranks: each rank's batch b_i, micro-batch m_i,
// accumulation steps g_i (b_i = g_i m_i) and shard fraction s_i, and the ZeRO stage, from the
// configuration's batch split and state sharding, each rank's memory capacity and, for the
// proportional and auto splits, each rank's measured time per micro-batch. Pure arithmetic:
// every rank computes the same plan from the same inputs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/hetero_plan.hpp"
#include "kernels/transformer/gpt_model.hpp"
#include "kernels/transformer/state_sharding.hpp"
#include "kernels/transformer/transformer_memory.hpp"

namespace scaletune::kernels {

/// What a plan is made from.
struct TransformerPlanRequest {
  GptShape shape;                   ///< the model (max_micro_batch is ignored)
  int global_batch = 1;             ///< B, samples per step
  std::vector<int> per_rank_batch;  ///< [ranks] for even and explicit splits; empty otherwise
  bool auto_split = false;          ///< batch_split "auto" (else "proportional" when no batch)
  StateSharding sharding;
  /// [ranks] bytes each rank may use; <= 0: no limit
  std::vector<std::int64_t> capacity_bytes;
  /// [ranks] measured micro-batch times: required for proportional and auto splits; with an
  /// even or explicit split they only predict each rank's step_time_s
  std::vector<core::RankProfile> profiles;
  /// The memory of a model profiled elsewhere (an imported Cephalo profile): its fully sharded
  /// training state, what every rank holds besides it, and activations per sample of a
  /// micro-batch, bytes. When set it replaces the memory computed from `shape`: only zero3 is
  /// planned (sharding.stage must be zero3; even fractions without memory_proportional), each
  /// rank's memory_bytes comes from it alone and TransformerPlan::memory stays empty.
  std::optional<core::MemoryModel> memory_model;
};

/// A plan: the stage, each rank's part (step_time_s predicted from the profile, 0 without one;
/// memory_bytes = memory[i].total(), or by the request's memory_model), the exact memory of each
/// rank, rounds = max g_i (the collective rounds of zero2 and zero3), whether every rank fits, and
/// why it was chosen (or, when it does not fit, "the plan does not fit rank R: it needs X
/// (breakdown), more than its Y: short by Z").
struct TransformerPlan {
  StateSharding sharding;  ///< automatic false: the stage the plan uses
  std::vector<core::RankPlan> ranks;
  std::vector<TransformerMemory> memory;
  /// the planner's memory model of the stage (the request's, else transformer_memory_model of
  /// its shape), bytes: what split and shards were fitted against
  core::MemoryModel memory_model;
  int rounds = 1;
  bool fits = false;
  std::string why;
};

/// The plan of `request`. Even and explicit splits keep the given per_rank_batch, each
/// micro-batch the largest divisor of its batch that fits, shrunk one rank at a time (the rank
/// whose activations take the largest share of its capacity) until every rank fits or all are at
/// their smallest. When the profiles' speeds cannot be told apart (speed_contrast), "auto" and
/// "proportional" plan the even split that way, and `why` says so. "auto": plan_heterogeneous on
/// the profiles; "proportional": the same on each
/// rank's constant samples/s at its largest profiled micro-batch (batches in proportion to speed,
/// micro-batches free to fit); for zero2 and zero3, whose gradient exchange runs in lockstep
/// rounds, plan_heterogeneous_lockstep (the same number of micro-batches on every rank). Shards:
/// even, or memory_proportional_fractions of the chosen micro-batches. sharding "auto": the first
/// of replicated, zero1, zero2, zero3 (memory-proportional) that fits; when none does, zero3's
/// plan. `why` ends with the limiting rank and the rank with the largest share of its memory,
/// from the exact memory. Throws std::invalid_argument when lengths disagree with the rank count,
/// a needed profile is missing, or a profile's time of a planned micro-batch extrapolates to
/// <= 0 s, or memory_model is set with another stage than zero3.
TransformerPlan plan_transformer(const TransformerPlanRequest& request);

/// How far apart the ranks' measured speeds are, against the noise of their profiles.
struct SpeedContrast {
  /// fastest / slowest samples/s at the largest profiled micro-batch, minus 1
  double difference = 0.0;
  /// the largest relative spread of the timings at that micro-batch over ranks (0 unmeasured)
  double spread = 0.0;
  /// Whether the speeds differ by more than the noise of measuring them.
  bool distinguishable() const { return difference > spread; }
};

/// The contrast of `profiles` (each well-formed, see core::RankProfile). Throws
/// std::invalid_argument when there are none.
SpeedContrast speed_contrast(const std::vector<core::RankProfile>& profiles);

/// The check of a profiled plan against its first steps: ratio_i = measured_s[i] /
/// predicted_s[i] (rank i's forward + backward seconds in a step, measured and as its plan
/// predicted from its profile). When the ratios differ by more than the profiles' noise (largest
/// / smallest - 1 above the largest spread of any rank and size), the profiles with each rank's
/// times multiplied by its ratio (so they predict what was measured), to plan again with;
/// nullopt when they agree (a factor common to all ranks changes no plan). Throws
/// std::invalid_argument when the lengths differ or a time is not > 0.
std::optional<std::vector<core::RankProfile>> corrected_profiles(
    const std::vector<core::RankProfile>& profiles, const std::vector<double>& predicted_s,
    const std::vector<double>& measured_s);

/// One line: "zero2:memory_proportional; r0 b=16 m=8 g=2 s=0.500 2.1 GiB; r1 ...; <why>".
std::string describe_plan(const TransformerPlan& plan);

}  // namespace scaletune::kernels
