#pragma once
// Runs one configuration of the collective benchmark (workload kind "collectives") on the
// ranks of a sub-communicator: every op at every size, verified and timed as nccl-tests does,
// the table printed on rank 0 as it goes, the rows for /collectives.

#include <mpi.h>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/job/job.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// A collectives configuration's outcome: its /configs group and its /collectives rows.
struct CollectivesRun {
  /// Status as for run_config. When ok, one "iteration" is the whole benchmark: step_time [1] is
  /// the slowest rank's wall time of it (s), the phases are the ops, each rank's phase time the
  /// time of that op's timed loops (s), rank_memory_peak the two buffers (bytes); throughput is
  /// benchmarks per second (global_batch 1).
  results::ConfigResult config;
  /// On rank 0 when ok: per op and size the out-of-place row, then the in-place row when timed
  /// (workload.collectives.in_place): time_us the mean over ranks of
  /// time per op, algbw = bytes / time (GB/s, GB = 1e9 bytes), busbw = algbw x bus_factor,
  /// wrong summed over ranks (-1 when not verifiable), source "scaletune:<config id>".
  std::vector<results::CollectiveResult> rows;
  /// As ConfigRun::device_lost: set when a rank's device became unusable (the communicator
  /// could not be built or a collective hit a sticky CUDA error), the same on every rank.
  std::optional<DeviceLoss> device_lost;
};

/// Collective over `comm` (size config.ranks). Never throws for a failing configuration (as
/// run_config, a core::FatalDeviceError winning over other errors). On rank 0 a configuration whose
/// results had wrong elements is status error (its rows kept, with their counts); other ranks see
/// ok then. `make_communicator` builds the measured communicator; `rank_lines` describe the ranks
/// in the printed preamble; rank 0 prints the nccl-tests-style tables to `table` when it is not
/// null.
CollectivesRun run_collectives_config(const job::JobSpec& job, const job::Config& config,
                                      MPI_Comm comm, const CommunicatorFactory& make_communicator,
                                      const std::vector<std::string>& rank_lines,
                                      std::ostream* table);

}  // namespace scaletune::mpi
