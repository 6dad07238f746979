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

bool sharding_applies(const DlrmOptions& options, std::string_view sharding, int ranks) {
  if (std::ranges::find(kShardingSchemes, sharding) != kShardingSchemes.end()) return true;
  const auto plan = std::ranges::find(options.plans, sharding, &ExplicitPlan::name);
  if (plan == options.plans.end())
    throw std::out_of_range("unknown sharding '" + std::string(sharding) + "'");
  return ranks >= min_ranks(*plan);
}

std::vector<Config> expand_dlrm_sweep(const JobSpec& job) {
  return expand_batch_product(job, [&](int ranks) {
    std::vector<std::string> shardings;
    for (const std::string& sharding : job.sweep.sharding)
      if (sharding_applies(job.workload.dlrm, sharding, ranks)) shardings.push_back(sharding);
    return shardings;
  });
}

}  // namespace scaletune::job::detail
