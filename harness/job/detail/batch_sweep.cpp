#include "harness/job/detail/batch_sweep.hpp"

#include "harness/job/sweep.hpp"

namespace scaletune::job::detail {

std::vector<Config> expand_batch_product(const JobSpec& job, const ShardingsOf& shardings) {
  const SweepSpec& sweep = job.sweep;
  std::vector<Config> configs;
  for (const int ranks : sweep.ranks) {
    const std::vector<ConfigSharding> rank_shardings = shardings(ranks);
    for (const int global_batch : sweep.global_batch)
      for (std::size_t split = 0; split < sweep.batch_split.size(); ++split) {
        if (!split_applies(sweep, split, ranks)) continue;
        for (const DataType precision : sweep.precision)
          for (const ConfigSharding& sharding : rank_shardings) {
            Config config{.id = "",
                          .workload = job.workload.kind,
                          .ranks = ranks,
                          .global_batch = global_batch,
                          .batch_split = sweep.batch_split[split],
                          .per_rank_batch = per_rank_batch(sweep, split, global_batch, ranks),
                          .precision = precision,
                          .sharding = sharding};
            config.id = config_id(config);
            configs.push_back(std::move(config));
          }
      }
  }
  return configs;
}

std::vector<Config> expand_batch_sweep(const JobSpec& job) {
  return expand_batch_product(job,
                              [](int) { return std::vector<ConfigSharding>{std::monostate{}}; });
}

}  // namespace scaletune::job::detail
