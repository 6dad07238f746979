#include "harness/job/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <variant>

#include "harness/job/batch_split.hpp"
#include "harness/job/detail/workload_kinds.hpp"

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
  if (is_profiled_split(sweep.batch_split[split])) {
    if (global_batch < ranks)
      throw std::invalid_argument(std::to_string(global_batch) + " samples cannot give each of " +
                                  std::to_string(ranks) + " ranks at least one");
    return {};  // the workload splits the batch at run time
  }
  const std::vector<double>& weights = sweep.split_weights[split];
  return weights.empty() ? even_split(global_batch, ranks) : weighted_split(global_batch, weights);
}

std::vector<Config> expand_sweep(const JobSpec& job) {
  return detail::workload_kind(job.workload.kind).expand(job);
}

std::string config_sharding_text(const Config& config) {
  if (const auto* sharding = std::get_if<DlrmSharding>(&config.sharding))
    return sharding_text(*sharding);
  if (const auto* sharding = std::get_if<StateSharding>(&config.sharding))
    return state_sharding_text(*sharding);
  return "";
}

std::string config_id(const Config& config) {
  const std::string head = config.workload + "-r" + std::to_string(config.ranks);
  const std::string precision(data_type_text(config.precision));
  if (config.batch_split == kNoBatchSplit) return head + "-" + precision;
  // A weight list is written "0.5,0.25,0.25"; a named split ("even") starts with a letter.
  std::string split = config.batch_split;
  if (!split.empty() && !std::isalpha(static_cast<unsigned char>(split.front()))) {
    std::ranges::replace(split, ',', '_');
    split = "w" + split;
  }
  const std::string id =
      head + "-b" + std::to_string(config.global_batch) + "-" + split + "-" + precision;
  std::string sharding = config_sharding_text(config);
  if (sharding.empty()) return id;
  std::ranges::replace(sharding, ':', '-');
  return id + "-" + sharding;
}

std::string sharding_key(std::string_view kind) {
  return detail::workload_kind(kind).sweeps_state_sharding ? "state_sharding" : "sharding";
}

}  // namespace scaletune::job
