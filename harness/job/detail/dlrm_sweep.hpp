#pragma once
// The sweep of kind "dlrm": the batch sweep with [sweep] sharding innermost.

#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// The fewest ranks explicit plan `plan` applies to: one more than the highest rank it names
/// (1 for a plan of data_parallel tables only).
int min_ranks(const ExplicitPlan& plan);

/// Whether [sweep] sharding value `sharding` applies to a configuration of `ranks` ranks: a
/// built-in scheme always; an explicit plan (the one of that name in `options.plans`) when
/// `ranks` >= min_ranks(plan), i.e. exceeds every rank the plan names. Throws std::out_of_range
/// when `options.plans` has no plan of that name (parse_job_* has ruled that out).
bool sharding_applies(const DlrmOptions& options, const DlrmSharding& sharding, int ranks);

/// expand_batch_product with the job's [sweep] sharding values innermost, leaving out
/// explicit plans that do not apply to the ranks value (sharding_applies).
std::vector<Config> expand_dlrm_sweep(const JobSpec& job);

}  // namespace scaletune::job::detail
