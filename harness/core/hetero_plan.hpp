#pragma once
// Heterogeneous batch and state planner (issue 5): splits the global batch over unequal ranks
// (per-rank batch b_i = g_i * m_i: micro-batch m_i, accumulation steps g_i) by their measured
// speed, and shards the training state (parameters, gradients, optimizer state) by their memory,
// so that the step time is minimal and no rank runs out of memory when a fitting plan exists.
// Pure arithmetic: no MPI, no kernels.

#include <cstdint>
#include <string>
#include <vector>

namespace scaletune::core {

/// One rank's measured speed and memory. `micro_batches` (samples, strictly increasing, >= 1)
/// and `time_s` (seconds of one micro-batch, forward + backward, > 0) have equal length >= 1.
/// `capacity_bytes` is the memory the rank may use (> 0). `spread` is the noise of the timings:
/// for each size the relative spread of its repeated calls, (p75 - p25) / median; empty when
/// not measured (the planner then takes the timings as exact). `accumulation_overhead_s` (>= 0,
/// s) is what each micro-batch after the first adds to a step besides its own time: 0 for
/// profiles timed here (their micro-batch time includes it); Cephalo's cost model charges 10 ms
/// per transformer layer (Guo et al., ICS 2025; split_workload.py's ga_overhead).
struct RankProfile {
  std::vector<int> micro_batches;
  std::vector<double> time_s;
  std::int64_t capacity_bytes = 0;
  std::vector<double> spread;
  double accumulation_overhead_s = 0.0;
};

/// Bytes one rank holds: state_bytes * s_i (parameters, gradients and optimizer state, sharded
/// by fraction s_i) + replicated_bytes + activation_bytes_per_sample * m_i. All >= 0.
struct MemoryModel {
  double state_bytes = 0.0;
  double replicated_bytes = 0.0;
  double activation_bytes_per_sample = 0.0;
};

/// One rank's part of a plan: batch = micro_batch * accumulation (samples), shard_fraction of
/// the state, step_time_s = accumulation * t(micro_batch), memory_bytes by the MemoryModel.
struct RankPlan {
  int batch = 0;
  int micro_batch = 0;
  int accumulation = 0;
  double shard_fraction = 0.0;
  double step_time_s = 0.0;
  std::int64_t memory_bytes = 0;
};

/// A whole plan: one RankPlan per rank, step_time_s = max over ranks, fits = every rank's
/// memory_bytes <= its capacity, and `why` (one or two sentences: which rank limits the step,
/// which rank uses the largest share of its memory, or which rank is short by how many bytes).
struct HeteroPlan {
  std::vector<RankPlan> ranks;
  double step_time_s = 0.0;
  bool fits = false;
  std::string why;
};

/// Time of one micro-batch of `micro_batch` samples on `profile`, s: linear interpolation
/// between measured sizes; outside them linear extrapolation from the nearest two measured
/// points (one point: time proportional to the micro-batch). Throws std::invalid_argument when
/// micro_batch < 1 or the profile is malformed (see RankProfile).
double micro_batch_time_s(const RankProfile& profile, int micro_batch);

/// Busy time of a step of `accumulation` micro-batches of `micro_batch` samples on `profile`, s:
/// accumulation * micro_batch_time_s + (accumulation - 1) * accumulation_overhead_s. Throws as
/// micro_batch_time_s, and when accumulation < 1 or the overhead is negative or not finite.
double step_time_s(const RankProfile& profile, int micro_batch, int accumulation);

/// Shard fractions s_i (>= 0, sum 1), one per rank, so every rank uses the same fraction f of
/// its capacity: f = (state + sum_A fixed_i) / sum_A capacity_i and
/// s_i = (f * capacity_i - fixed_i) / state, with fixed_i = replicated + activation * m_i, over
/// the set A of ranks whose fixed_i < f * capacity_i; the others are clamped to s_i = 0 and A
/// shrinks until no s_i is negative (water-filling). This f is the smallest possible largest
/// used/capacity fraction. state_bytes = 0 gives even fractions. Throws std::invalid_argument on
/// unequal lengths, no ranks, capacity <= 0 or micro_batch < 1.
std::vector<double> memory_proportional_fractions(const std::vector<std::int64_t>& capacity,
                                                  const MemoryModel& model,
                                                  const std::vector<int>& micro_batch);

/// Integer shares of `global_batch` proportional to `speed` (samples/s, each > 0), summing to
/// global_batch, each >= 1: floors of the quotas B * speed_i / sum(speed), the remainder to the
/// largest fractional parts (ties to the lower rank); a rank left with 0 takes one sample from
/// the rank furthest above its quota. Throws std::invalid_argument when global_batch < ranks
/// or a speed is not positive.
std::vector<int> proportional_split(int global_batch, const std::vector<double>& speed);

/// The plan that minimises step time T = max_i step_time_s(profile_i, m_i, g_i)
/// subject to sum b_i = global_batch, b_i = g_i * m_i exactly (b_i >= 1, m_i in 1..B), and
/// every rank's memory <= its capacity for some shard fractions s_i >= 0 summing to 1.
/// Exact: a binary search over the candidate times g * t_i(m), each checked by a dynamic
/// program over ranks and samples that maximises the sum of the largest shard fractions that
/// fit (feasible when it reaches 1); O(n B^2 log(n B log B)) for n ranks and B = global_batch.
/// Among optimal plans each rank then takes the micro-batch that minimises its own busy time
/// (ties to the larger micro-batch) while the state still fits, and the shard fractions are
/// memory_proportional_fractions of the chosen micro-batches. When no plan fits (some rank
/// cannot hold micro-batch 1, or the state does not fit beside it) the result has fits = false:
/// micro-batch 1 everywhere, batches by proportional_split of 1 / t_i(1), memory-proportional
/// fractions (the smallest largest over-use), and `why` names the rank furthest over and by how
/// many bytes. Throws std::invalid_argument on no ranks, global_batch < ranks, a malformed
/// profile, a negative memory term, or a time that extrapolates to <= 0 within 1..B.
HeteroPlan plan_heterogeneous(const std::vector<RankProfile>& profiles, const MemoryModel& model,
                              int global_batch);

/// As plan_heterogeneous, with every rank running the same number G of micro-batches
/// (b_i = G m_i), as exchanges in lockstep rounds need (ZeRO-2 and ZeRO-3 reduce-scatter after
/// every micro-batch, so a rank with fewer micro-batches would idle through the others' extra
/// rounds, and the step would take the sum over rounds of the slowest rank's micro-batch): the
/// plan of least step time G max_i t_i(m_i) over the divisors G of global_batch with
/// global_batch / G >= ranks (ties to the smaller G), each solved exactly as plan_heterogeneous
/// does with the accumulation fixed; `why` starts with "Every rank runs G micro-batches". When no
/// G fits, plan_heterogeneous's plan (uneven accumulation still beats running out of memory),
/// its `why` prefixed with "No plan with the same number of micro-batches on every rank fits.".
/// Throws as plan_heterogeneous.
HeteroPlan plan_heterogeneous_lockstep(const std::vector<RankProfile>& profiles,
                                       const MemoryModel& model, int global_batch);

}  // namespace scaletune::core
