#pragma once
// The sweep of kinds that train on a batch (resnet50): ranks x global_batch x batch_split x
// precision.

#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// The Cartesian product ranks (outermost, so a launch runs small rank counts first) x
/// global_batch x batch_split x precision (innermost), leaving out weight lists whose length
/// differs from ranks; fills id, per_rank_batch and batch_split text. Throws
/// std::invalid_argument when a batch cannot be split (parse_job_* has ruled that out).
std::vector<Config> expand_batch_sweep(const JobSpec& job);

}  // namespace scaletune::job::detail
