#pragma once
// Runs one configuration on the ranks of a sub-communicator: builds the workload, warms up,
// times the iterations, agrees on the outcome and gathers the measurements to rank 0.

#include <mpi.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/core/hetero_plan.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/failure_notices.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/results/result_types.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::mpi {

/// A training configuration's outcome.
struct ConfigRun {
  results::ConfigResult config;  ///< its /configs group (rank 0: full; other ranks: the status)
  /// Set when a rank's device became unusable (core::FatalDeviceError; config.status is then
  /// error with that rank's message): the rank in `comm` and its message. The same on every rank.
  std::optional<DeviceLoss> device_lost;
};

/// Where a configuration's ranks compute and how they communicate.
struct RankTarget {
  const CommunicatorFactory& make_communicator;  ///< the configuration's communicator
  core::Device* device = nullptr;                ///< this rank's device; nullptr: the host
  core::DeviceKind device_kind = core::DeviceKind::host;
  /// Where a rank whose workload threw tells world rank 0 at once (its peers may be left
  /// waiting for it in a collective); nullptr: nowhere.
  FailureNotices* notices = nullptr;
};

/// Collective over `comm` (whose size must equal config.ranks). Never throws for a failing
/// configuration: an allocation failure is status oom, exceeding job.run.timeout_s (checked
/// between iterations) is timeout, any other exception on any rank is error, with the first
/// failing rank's message (a core::FatalDeviceError on any rank wins, and sets device_lost).
/// A rank whose workload throws announces it on target.notices before it goes to agree.
/// Rank 0 of `comm` gets the full result; other ranks get the status.
/// step_time[i] is the slowest rank's wall time of iteration i (s); throughput =
/// global_batch / median step time (samples/s); harness_overhead_fraction is measured too.
/// world_ranks[i] is the launch's world rank of rank i of `comm`; a per-rank
/// devices.memory_gib list is indexed by it (the job file lists memory by world rank).
/// `target`: the communicators to make over `comm`, this rank's device (the workload's ops run
/// there; the phase timer fences it and the communicator) and the launch's device kind. The
/// memory budget is devices.memory_gib, else 90% of the device's free memory (cuda) or the
/// rank's share of the host's available memory.
/// `workload`: the kind's factory (and describer).
ConfigRun run_config(const job::JobSpec& job, const job::Config& config, MPI_Comm comm,
                     std::span<const int> world_ranks, const RankTarget& target,
                     const core::WorkloadEntry& workload);

/// Fills step_time_median, step_time_p95 (s) and throughput = global_batch / median step time
/// (samples/s) from r.step_time (non-empty).
void fill_step_statistics(results::ConfigResult& r);

/// A result row with the configuration's settings filled in and no measurements.
results::ConfigResult describe(const job::Config& config);

/// Stores what the workload reports of itself in `r`: params, flops_per_sample, its own split
/// (per_rank_batch, when it chose one), its number and text attributes.
void record_workload(results::ConfigResult& r, const trace::WorkloadAttributes& w);

/// Stores `profiles` (the workload's rank_profiles: one per rank, the same sizes each) and the
/// memory model the split was fitted against (the workload's profile_memory_model) as
/// r.profile; nothing when `profiles` is empty. A profile without spreads stores spreads of 0.
void record_profile(results::ConfigResult& r, const std::vector<core::RankProfile>& profiles,
                    const std::optional<core::MemoryModel>& memory_model);

/// Stores the job's [comm] settings in `r`: comm_backend (the communicator's backend name;
/// left out when empty, for a configuration that made no communicator), overlap (1 or 0) and
/// bucket_mib.
void record_comm(results::ConfigResult& r, const job::CommSpec& comm, const std::string& backend);

}  // namespace scaletune::mpi
