#pragma once
// The launch record of one configuration (/configs/<id>/launch) from its launch's /system.

#include <span>
#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::results {

/// The record of a configuration whose rank i ran on world rank world_ranks[i] of the launch
/// `system` describes, which began at `started_utc` (ISO 8601): its world size, start, launcher
/// and Slurm job and step, and the /system/ranks rows of those world ranks in
/// configuration-rank order. Throws std::out_of_range naming the world rank when system.ranks
/// has no row for it.
LaunchRecord launch_record(const SystemInfo& system, const std::string& started_utc,
                           std::span<const int> world_ranks);

}  // namespace scaletune::results
