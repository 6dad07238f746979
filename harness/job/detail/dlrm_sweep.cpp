#include "harness/job/detail/dlrm_sweep.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/job/detail/batch_sweep.hpp"

namespace scaletune::job::detail {

int min_ranks(const ExplicitPlan& plan) {
  int highest = 0;
  for (const TablePlacement& placement : plan.tables)
    for (const int rank : placement.ranks) highest = std::max(highest, rank);
  return highest + 1;
}

bool sharding_applies(const DlrmOptions& options, const DlrmSharding& sharding, int ranks) {
  if (sharding.scheme != ShardingScheme::explicit_plan) return true;
  const auto plan = std::ranges::find(options.plans, sharding.plan, &ExplicitPlan::name);
  if (plan == options.plans.end())
    throw std::out_of_range("unknown sharding plan '" + sharding.plan + "'");
  return ranks >= min_ranks(*plan);
}

std::vector<Config> expand_dlrm_sweep(const JobSpec& job) {
  return expand_batch_product(job, [&](int ranks) {
    std::vector<ConfigSharding> shardings;
    for (const DlrmSharding& sharding : job.sweep.sharding)
      if (sharding_applies(job.workload.dlrm, sharding, ranks)) shardings.push_back(sharding);
    return shardings;
  });
}

}  // namespace scaletune::job::detail
