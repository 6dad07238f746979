#pragma once
// The workload kinds a job file may name, in one place: each kind's option keys, how to read
// them from [workload] and how to describe them in a plan. A new kind adds one entry here.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// One workload kind: its name, the [workload] keys it takes besides "kind", a reader that
/// fills its options in a WorkloadSpec, a one-line description of those options, what its
/// [sweep] takes (batch keys, sharding, state sharding, profiled splits), which precisions it
/// trains in on the host and how its configurations are made.
struct WorkloadKind {
  std::string_view name;
  std::span<const std::string_view> option_keys;
  void (*read_options)(const TableReader& workload, WorkloadSpec& spec);
  std::string (*describe_options)(const WorkloadSpec& spec);
  /// true: [sweep] takes global_batch (required), batch_split and precision besides ranks;
  /// false: ranks only, and those keys are errors.
  bool sweeps_batch;
  /// true: [sweep] takes sharding (required; kShardingSchemes values and the kind's explicit
  /// plans); false: sharding is an error.
  bool sweeps_sharding;
  /// true: [sweep] takes state_sharding (optional, default ["replicated"]; kStateShardings
  /// values), carried in Config::sharding; false: state_sharding is an error.
  bool sweeps_state_sharding;
  /// true: [sweep] batch_split also takes the kProfiledSplits words ("proportional", "auto"):
  /// the workload profiles its ranks and splits the batch at run time; false: they are errors.
  bool profiles_ranks;
  /// Of the [sweep] precision values (kTrainingPrecisions, every kind that sweeps a batch), those
  /// it trains in on the host: fp32 for all; fp16 and bf16 too where the host stores something
  /// in 16 bits (dlrm: its embedding tables). Empty for a kind without [sweep] precision.
  std::span<const DataType> host_precisions;
  /// The configurations of a validated job of this kind, in run order (expand_sweep).
  std::vector<Config> (*expand)(const JobSpec& job);
};

/// Every kind this version knows.
std::span<const WorkloadKind> workload_kinds();

/// The kind named `name`; throws std::out_of_range when there is none (the parser has checked).
const WorkloadKind& workload_kind(std::string_view name);

/// Reads [workload]: kind (required, one of workload_kinds()) and that kind's options; keys of
/// other kinds are unknown keys. Throws JobError.
WorkloadSpec read_workload(const TableReader& workload);

}  // namespace scaletune::job::detail
