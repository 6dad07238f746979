#pragma once
// The job a describing command (trace, predict) reads: its file, its configurations (at
// `--world N` ranks when given), the device kind they are described for (`--device`, else the
// job's [devices] kind: cuda for "cuda", host otherwise) and the registered workloads.

#include <string>
#include <vector>

#include "autotune/performance_model.hpp"
#include "harness/cli/args.hpp"
#include "harness/core/device.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"

namespace scaletune::cli {

/// A job read for description.
struct DescribedJob {
  job::JobSpec job;
  std::vector<job::Config> configs;  ///< the sweep's, ranks replaced by --world when given
  core::DeviceKind target = core::DeviceKind::host;
  core::WorkloadRegistry registry;  ///< kernels::register_workloads

  /// The registry entry of the job's workload kind.
  const core::WorkloadEntry& workload() const { return registry.entry(job.workload.kind); }
  /// "host" or "cuda".
  std::string target_name() const;
};

/// Reads args.positional[0]. `--world N` replaces the [sweep] ranks by N (the configurations
/// described as at N ranks, above the machine's too); `--device host|cuda` picks the device kind.
/// Throws job::JobError for a bad job file or a sweep that cannot take N ranks, UsageError for
/// a bad option value or a job whose workload is not a training workload (collectives).
DescribedJob load_described_job(const Args& args);

/// Ranks per node the job's predictions place collectives on, as its batch scripts would place
/// them: its [slurm] tasks_per_node, else its gpus_per_node (1 when that is 0), else 0 (no
/// [slurm] layout: that of the logs the models were fitted on).
int predicted_ranks_per_node(const job::JobSpec& job);

/// Throws std::invalid_argument when the job's [slurm] nodes (when set) cannot hold `ranks`
/// ranks at its ranks per node: slurm::allocations' "64 ranks need 8 nodes of 8 ranks; 2 nodes
/// (--nodes, else [slurm] nodes) hold 16", as its batch scripts would refuse them.
void expect_allocation_holds(const job::JobSpec& job, int ranks);

/// fn(), with the model file `path` named in front of the message of an autotune::MissingModel
/// it throws (rethrown as autotune::MissingModel).
template <class Fn>
auto naming_model_file(const std::string& path, Fn fn) {
  try {
    return fn();
  } catch (const autotune::MissingModel& e) {
    throw autotune::MissingModel(path + ": " + e.what());
  }
}

/// The models of `models` set up for `job` (ranks placed predicted_ranks_per_node to a node).
autotune::PerformanceModel job_performance_model(const results::ModelSet& models,
                                                 const job::JobSpec& job);

}  // namespace scaletune::cli
