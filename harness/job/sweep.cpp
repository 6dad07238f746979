#include "harness/job/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "harness/job/batch_split.hpp"

namespace scaletune::job {

bool split_applies(const SweepSpec& sweep, std::size_t split, int ranks) {
  const std::vector<double>& weights = sweep.split_weights.at(split);
  return weights.empty() || static_cast<int>(weights.size()) == ranks;
}

std::vector<int> per_rank_batch(const SweepSpec& sweep, std::size_t split, int global_batch,
                                int ranks) {
  if (!split_applies(sweep, split, ranks))
    throw std::invalid_argument("batch_split '" + sweep.batch_split.at(split) +
                                "' does not apply to " + std::to_string(ranks) + " ranks");
  const std::vector<double>& weights = sweep.split_weights[split];
  return weights.empty() ? even_split(global_batch, ranks) : weighted_split(global_batch, weights);
}

std::vector<Config> expand_sweep(const JobSpec& job) {
  const SweepSpec& sweep = job.sweep;
  std::vector<Config> configs;
  for (const int ranks : sweep.ranks)
    for (const int global_batch : sweep.global_batch)
      for (std::size_t split = 0; split < sweep.batch_split.size(); ++split) {
        if (!split_applies(sweep, split, ranks)) continue;
        for (const std::string& precision : sweep.precision) {
          Config config{.id = "",
                        .workload = job.workload.kind,
                        .ranks = ranks,
                        .global_batch = global_batch,
                        .batch_split = sweep.batch_split[split],
                        .per_rank_batch = per_rank_batch(sweep, split, global_batch, ranks),
                        .precision = precision};
          config.id = config_id(config);
          configs.push_back(std::move(config));
        }
      }
  return configs;
}

std::string config_id(const Config& config) {
  // A weight list is written "0.5,0.25,0.25"; a named split ("even") starts with a letter.
  std::string split = config.batch_split;
  if (!split.empty() && !std::isalpha(static_cast<unsigned char>(split.front()))) {
    std::ranges::replace(split, ',', '_');
    split = "w" + split;
  }
  return config.workload + "-r" + std::to_string(config.ranks) + "-b" +
         std::to_string(config.global_batch) + "-" + split + "-" + config.precision;
}

}  // namespace scaletune::job
