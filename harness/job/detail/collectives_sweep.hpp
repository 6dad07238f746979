#pragma once
// The sweep of kind "collectives": ranks only.

#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// One configuration per sweep.ranks value, in the order listed: workload "collectives",
/// global_batch 1 (one sample is one pass over every op and size), batch_split kNoBatchSplit,
/// per_rank_batch empty, precision the dtype, id "collectives-r<ranks>-<dtype>".
std::vector<Config> expand_collectives_sweep(const JobSpec& job);

}  // namespace scaletune::job::detail
