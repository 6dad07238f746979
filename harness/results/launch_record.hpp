#pragma once
// The launch record of one configuration (/configs/<id>/launch) from its launch's /system.

#include <span>
#include <string>
#include <string_view>

#include "harness/results/result_types.hpp"

namespace scaletune::results {

/// True for the launchers a result file names: "mpirun", "srun", "singleton".
bool is_launcher_name(std::string_view name);

/// True for an ISO 8601 UTC time as result files store it: "YYYY-MM-DDTHH:MM:SSZ" (digits where
/// the letters stand; the form, not the calendar, is checked).
bool is_utc_timestamp(std::string_view text);

/// The record of a configuration whose rank i ran on world rank world_ranks[i] of the launch
/// `system` describes, which began at `started_utc` (ISO 8601): its world size, start, launcher
/// and Slurm job and step, and the /system/ranks rows of those world ranks in
/// configuration-rank order. Throws std::out_of_range naming the world rank when system.ranks
/// has no row for it.
LaunchRecord launch_record(const SystemInfo& system, const std::string& started_utc,
                           std::span<const int> world_ranks);

}  // namespace scaletune::results
