#pragma once
// The sweep of kind "transformer": the batch sweep with [sweep] state_sharding innermost.

#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// expand_batch_product with the job's [sweep] state_sharding values innermost (each in
/// Config::sharding, so the id ends with it, ':' written as '-'). A profiled batch_split
/// ("proportional", "auto") leaves Config::per_rank_batch empty.
std::vector<Config> expand_transformer_sweep(const JobSpec& job);

}  // namespace scaletune::job::detail
