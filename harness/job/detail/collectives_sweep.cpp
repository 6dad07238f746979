#include "harness/job/detail/collectives_sweep.hpp"

#include "harness/job/sweep.hpp"

namespace scaletune::job::detail {

std::vector<Config> expand_collectives_sweep(const JobSpec& job) {
  std::vector<Config> configs;
  for (const int ranks : job.sweep.ranks) {
    Config config{.id = "",
                  .workload = job.workload.kind,
                  .ranks = ranks,
                  .global_batch = 1,
                  .batch_split = kNoBatchSplit,
                  .per_rank_batch = {},
                  .precision = job.workload.collectives.dtype,
                  .sharding = std::monostate{}};
    config.id = config_id(config);
    configs.push_back(std::move(config));
  }
  return configs;
}

}  // namespace scaletune::job::detail
