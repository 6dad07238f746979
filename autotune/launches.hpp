#pragma once
// The launches (mpirun or srun runs, Slurm jobs) that produced a result file's configurations,
// from their launch records: a sweep split over several jobs says which job ran what.

#include <cstddef>
#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// One launch and what it ran.
struct LaunchSummary {
  std::string started_utc;         ///< when it began (ISO 8601)
  std::string launcher;            ///< mpirun, srun, singleton
  std::string slurm_job_id;        ///< "" outside Slurm
  int world_size = 0;              ///< its ranks
  std::vector<std::string> hosts;  ///< hosts its configurations used, in order of first use
  std::size_t configurations = 0;  ///< configurations it ran
};

/// The distinct launches of `rs`'s configurations that have a launch record (same start,
/// launcher, Slurm job and world size: one launch), in order of first appearance.
std::vector<LaunchSummary> launches_of(const results::ResultSet& rs);

/// "Launches: 2 (Slurm job 101, mpirun, world size 1 on node1, from 2026-11-30T03:00:00Z: 1
/// configuration; ...)", one clause per launch; "" when there are fewer than 2 launches (the
/// /system line then describes the only one).
std::string launches_sentence(const results::ResultSet& rs);

}  // namespace scaletune::autotune
