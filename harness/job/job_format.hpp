#pragma once
// The plan `scaletune plan` prints: what a job would run, without running it.

#include <string>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job {

/// Text of the plan, every line ending in '\n':
///   job NAME: workload KIND (OPTIONS), output PATH
///   devices: memory_gib 16 per rank            (only when [devices] memory_gib is given; a
///   devices: memory_gib 16,32 (rank 0, 1, ...)  list gives each rank's value in rank order)
///   a table (header row, units row, one row per configuration) with columns
///     # | id | ranks | global_batch (samples) | per_rank_batch (samples per rank: "32x4" for
///     four ranks of 32, "40,20,20" for an uneven split, "-" for a split profiled at run time)
///     | precision | [sharding] | runs
///   (the sharding column only when a configuration has a sharding: kind dlrm; named
///   state_sharding for kind transformer)
///   total: N configurations, ...
/// `runs` is "skipped (needs R ranks)" when world_size > 0 and the configuration's ranks exceed
/// it, "yes" otherwise; world_size 0 means unknown (no --world), and the total line says so.
/// A kind that sweeps ranks only (collectives) shows global_batch 1 (one pass over every op and
/// size) and per_rank_batch "-"; its header line gives the number of sizes per op.
/// Throws std::out_of_range when job.workload.kind is no known workload kind, and
/// std::invalid_argument or std::length_error for collectives sizes out of range (parse_job_*
/// rules both out).
std::string format_plan(const JobSpec& job, const std::vector<Config>& configs, int world_size);

}  // namespace scaletune::job
