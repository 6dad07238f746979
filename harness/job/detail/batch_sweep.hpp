#pragma once
// The sweep of kinds that train on a batch (resnet50, dlrm, transformer): ranks x global_batch x
// batch_split x precision, and for dlrm x sharding, for transformer x state_sharding.

#include <functional>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// The Config::sharding values a ranks value takes, in order ({std::monostate} for a kind
/// without sharding).
using ShardingsOf = std::function<std::vector<ConfigSharding>(int ranks)>;

/// The Cartesian product ranks (outermost, so a launch runs small rank counts first) x
/// global_batch x batch_split x precision x shardings(ranks) (innermost), leaving out weight
/// lists whose length differs from ranks; fills id, per_rank_batch, batch_split text and
/// sharding. Throws std::invalid_argument when a batch cannot be split (parse_job_* has ruled
/// that out).
std::vector<Config> expand_batch_product(const JobSpec& job, const ShardingsOf& shardings);

/// expand_batch_product without sharding (every Config::sharding std::monostate).
std::vector<Config> expand_batch_sweep(const JobSpec& job);

}  // namespace scaletune::job::detail
