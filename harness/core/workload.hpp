#pragma once
// The workload interface: a training-shaped job one rank runs step by step. Each workload
// lives in one file under kernels/ and adds itself to the registry (workload_registry.hpp).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/core/device.hpp"
#include "harness/core/hetero_plan.hpp"
#include "harness/core/phase_timer.hpp"
#include "harness/job/job.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::core {

/// What a workload needs to know about the rank it runs on.
struct RankContext {
  Communicator* comm = nullptr;  ///< the configuration's group; outlives the workload
  /// samples this rank processes per step; 0: the workload splits the batch itself
  /// (batch_split proportional/auto: Config::per_rank_batch is empty)
  int per_rank_batch = 1;
  int global_batch = 1;  ///< samples all ranks process per step (sum of per_rank_batch)
  /// global index of this rank's first sample in the step; 0 when per_rank_batch is 0
  int sample_offset = 0;
  double bucket_bytes = 25.0 * (1 << 20);  ///< gradient all-reduce bucket size, bytes
  /// All-reduce gradient buckets while backward runs (comm.overlap), as PyTorch DDP does
  bool overlap = true;
  std::uint64_t seed = 1;  ///< seed for synthetic inputs and initial weights
  int warmup = 0;  ///< untimed iterations the harness runs before the timed ones (run.warmup)
  std::int64_t memory_budget_bytes = 0;  ///< most this rank may allocate, bytes; 0: no limit
  /// The device this rank computes on (outlives the workload); nullptr: the host
  Device* device = nullptr;
};

/// What one rank served of one embedding table in a step (workloads with embedding tables).
struct TableRankStats {
  std::string table;               ///< the table's name
  std::int64_t lookups = 0;        ///< index positions this rank looked up per step
  std::int64_t bytes_touched = 0;  ///< bytes of rows read for them per step
  /// Share of the distinct rows read whose access count falls in (0,1], (1,2], (2,4], ...,
  /// (2^14,2^15], (2^15,inf); all 0 when the rank read nothing of the table
  std::array<double, 17> reuse_histogram{};
};

/// One rank's share of a training workload. Construction allocates everything
/// (std::bad_alloc there is recorded as status oom); step() allocates nothing.
class Workload {
 public:
  virtual ~Workload() = default;
  /// Names of the phases step() marks, in order, e.g. {"fwd", "bwd", "wait", "allreduce",
  /// "optimizer"}.
  virtual std::vector<std::string> phase_names() const = 0;
  /// One training iteration: forward, backward, gradient exchange, optimizer update.
  /// Calls timer.mark(p) at the end of each phase p. Collective over the group.
  virtual void step(PhaseTimer& timer) = 0;
  /// Trainable parameters of the model (count).
  virtual double params() const = 0;
  /// Training FLOP per sample, forward + backward (2 FLOP per multiply-add).
  virtual double flops_per_sample() const = 0;
  /// Bytes this rank's workload holds (parameters, gradients, optimizer state, activations,
  /// workspaces) at its peak.
  virtual std::int64_t memory_peak_bytes() const = 0;
  /// Samples of each rank per step ([ranks], summing to the global batch) when the workload
  /// split the batch itself (RankContext::per_rank_batch 0: batch_split proportional or auto);
  /// empty when it used the configuration's split.
  virtual std::vector<int> per_rank_batch() const { return {}; }
  /// Extra attributes stored with the configuration (e.g. image_size, width).
  virtual std::vector<std::pair<std::string, double>> attributes() const { return {}; }
  /// Extra text attributes stored with the configuration (e.g. the sharding plan).
  virtual std::vector<std::pair<std::string, std::string>> text_attributes() const { return {}; }
  /// Per-table statistics of this rank, one entry per embedding table of the model in the
  /// model's table order (the same tables on every rank); empty for models without tables.
  virtual std::vector<TableRankStats> table_stats() const { return {}; }
  /// Every rank's micro-batch profile the batch split was planned from ([ranks], the same on
  /// every rank; capacity_bytes 0: no limit); empty when the split was not planned from one.
  virtual std::vector<RankProfile> rank_profiles() const { return {}; }
  /// The memory model (bytes, MemoryModel) the split planned from rank_profiles was fitted
  /// against, for the stage the configuration runs; nullopt when there is no profile.
  virtual std::optional<MemoryModel> profile_memory_model() const { return std::nullopt; }
};

/// The attributes `workload` reports of itself, as a configuration records them.
inline trace::WorkloadAttributes attributes_of(const Workload& workload) {
  return {workload.params(), workload.flops_per_sample(), workload.per_rank_batch(),
          workload.attributes(), workload.text_attributes()};
}

}  // namespace scaletune::core
