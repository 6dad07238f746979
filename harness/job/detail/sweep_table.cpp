#include "harness/job/detail/sweep_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "harness/job/batch_split.hpp"
#include "harness/job/detail/dlrm_sweep.hpp"
#include "harness/job/detail/edit_distance.hpp"
#include "harness/job/detail/sweep_size.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"
#include "harness/job/detail/workload_kinds.hpp"
#include "harness/job/device_selection.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/sweep.hpp"

namespace scaletune::job::detail {
namespace {

// ranks first: a kind that sweeps ranks only takes none of the others.
constexpr std::array<std::string_view, 6> kKeys = {"ranks",     "global_batch", "batch_split",
                                                   "precision", "sharding",     "state_sharding"};
constexpr std::array<std::string_view, 3> kSplitWords = {"even", "proportional", "auto"};
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 20;        // 1,048,576
constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 30;  // 1,073,741,824 samples

/// A value read from a sweep list and the node it came from (for error positions).
template <class T>
struct Located {
  T value;
  const toml::node* node;
};

/// One batch_split entry: its text ("even", "0.5,0.25,0.25") and weights (empty for "even").
struct Split {
  std::string text;
  std::vector<double> weights;
};

std::string text_of(int value) {
  return std::to_string(value);
}
std::string text_of(const Split& split) {
  return split.text;
}
std::string text_of(DataType type) {
  return std::string(data_type_text(type));
}
std::string text_of(const DlrmSharding& sharding) {
  return sharding_text(sharding);
}
std::string text_of(const StateSharding& sharding) {
  return state_sharding_text(sharding);
}

/// The values of sweep list `key`, each made by `convert(node)`, or `fallback` when the key is
/// absent. Throws for a non-list, an empty list and a value listed twice.
template <class T, class Convert>
std::vector<Located<T>> read_list(const TableReader& sweep, std::string_view key,
                                  std::string_view list_words, const std::vector<T>& fallback,
                                  Convert convert) {
  std::vector<Located<T>> values;
  const toml::node* node = sweep.find(key);
  if (node == nullptr) {
    for (const T& value : fallback) values.push_back({value, nullptr});
    return values;
  }
  const toml::array* list = node->as_array();
  if (list == nullptr) sweep.fail_type(*node, key, list_words);
  if (list->empty()) sweep.fail(*node, key, "a sweep list must not be empty");
  for (const toml::node& element : *list) {
    Located<T> value{convert(element), &element};
    const std::string text = text_of(value.value);
    if (std::ranges::any_of(values, [&](const auto& seen) { return text_of(seen.value) == text; }))
      sweep.fail(
          element, key,
          std::string(key) + " lists " + text + " twice; every sweep value must be distinct");
    values.push_back(std::move(value));
  }
  return values;
}

std::vector<Located<int>> read_counts(const TableReader& sweep, std::string_view key,
                                      std::int64_t max) {
  sweep.require(key, "a list of integers >= 1, e.g. " + std::string(key) + " = [1, 2, 4]");
  return read_list<int>(sweep, key, "a list of integers", {}, [&](const toml::node& element) {
    return static_cast<int>(sweep.as_integer(element, key, 1, max));
  });
}

Split read_weights(const TableReader& sweep, const toml::array& list) {
  if (list.empty()) sweep.fail(list, "batch_split", "a batch_split weight list must not be empty");
  Split split;
  for (const toml::node& weight : list)
    split.weights.push_back(sweep.as_positive_number(weight, "batch_split"));
  std::vector<std::string> words;
  for (const double weight : split.weights) words.push_back(format_number(weight));
  split.text = join(words, ",");
  if (!std::isfinite(std::accumulate(split.weights.begin(), split.weights.end(), 0.0)))
    sweep.fail(list, "batch_split",
               "batch_split weights [" + split.text +
                   "] sum to infinity; weights must be finite, > 0 and have a finite sum (only "
                   "their ratios matter: [2, 1] splits 2:1)");
  return split;
}

/// "even", a profiled word (kProfiledSplits) for a kind that profiles its ranks, else an error.
Split read_split_word(const TableReader& sweep, const toml::node& element,
                      const WorkloadKind& kind) {
  const std::string word = sweep.as_string(element, "batch_split");
  const bool profiled = is_profiled_split(word);
  if (word == "even" || (profiled && kind.profiles_ranks)) return Split{word, {}};
  if (profiled)
    sweep.fail(element, "batch_split",
               "batch_split '" + word +
                   "' splits the batch by a profile of each rank taken at run time, which only "
                   "workload.kind = \"transformer\" does; use \"even\" or an explicit weight "
                   "list");
  const std::string words =
      kind.profiles_ranks ? "\"even\", \"proportional\", \"auto\"" : "\"even\"";
  sweep.fail(element, "batch_split",
             "unknown batch_split '" + word + "'; use " + words + " or an explicit weight list" +
                 did_you_mean(word, kSplitWords));
}

std::vector<Located<Split>> read_splits(const TableReader& sweep, const WorkloadKind& kind) {
  return read_list<Split>(sweep, "batch_split", "a list of \"even\" or weight lists",
                          {Split{"even", {}}}, [&](const toml::node& element) {
                            if (const toml::array* weights = element.as_array())
                              return read_weights(sweep, *weights);
                            if (!element.is_string())
                              sweep.fail_type(element, "batch_split",
                                              "\"even\" or a list of weights");
                            return read_split_word(sweep, element, kind);
                          });
}

/// A kTrainingPrecisions value; with devices.kind = "host" only one the kind supports there.
DataType read_precision(const TableReader& sweep, const toml::node& element,
                        const WorkloadKind& kind, DeviceKindRequest devices) {
  const std::string word = sweep.as_string(element, "precision");
  const auto words = words_of(kTrainingPrecisions, data_type_text);
  if (std::ranges::find(words, word) == words.end())
    sweep.fail(element, "precision",
               "unknown precision '" + word + "'; expected one of " + join(words, ", ") +
                   did_you_mean(word, words));
  const DataType precision = value_of(kTrainingPrecisions, data_type_text, word);
  if (devices == DeviceKindRequest::host && !precision_supported_on_host(kind.name, precision))
    sweep.fail(element, "precision",
               unsupported_on_host_message(kind.name, precision) +
                   ", or let the devices decide: devices.kind = \"host\" keeps every rank on the "
                   "host; \"auto\" or \"cuda\" trains in " +
                   std::string(data_type_text(precision)) + " on CUDA devices");
  return precision;
}

template <class T>
std::vector<T> values_of(const std::vector<Located<T>>& located) {
  std::vector<T> values;
  for (const Located<T>& item : located) values.push_back(item.value);
  return values;
}

SweepSpec to_spec(const std::vector<Located<int>>& ranks,
                  const std::vector<Located<int>>& global_batch,
                  const std::vector<Located<Split>>& splits,
                  const std::vector<Located<DataType>>& precision,
                  const std::vector<Located<DlrmSharding>>& sharding,
                  const std::vector<Located<StateSharding>>& state_sharding) {
  SweepSpec spec{.ranks = values_of(ranks),
                 .global_batch = values_of(global_batch),
                 .batch_split = {},
                 .split_weights = {},
                 .precision = values_of(precision),
                 .sharding = values_of(sharding),
                 .state_sharding = values_of(state_sharding)};
  for (const Located<Split>& split : splits) {
    spec.batch_split.push_back(split.value.text);
    spec.split_weights.push_back(split.value.weights);
  }
  return spec;
}

/// "1, 2, 4".
std::string ranks_text(const std::vector<int>& ranks) {
  std::vector<std::string> counts;
  for (const int count : ranks) counts.push_back(std::to_string(count));
  return join(counts, ", ");
}

void check_weight_lengths(const TableReader& sweep, const SweepSpec& spec,
                          const std::vector<Located<Split>>& splits) {
  for (const Located<Split>& split : splits) {
    const std::vector<double>& weights = split.value.weights;
    const int length = static_cast<int>(weights.size());
    if (weights.empty() || std::ranges::find(spec.ranks, length) != spec.ranks.end()) continue;
    sweep.fail(*split.node, "batch_split",
               "batch_split weight list [" + split.value.text + "] has " + std::to_string(length) +
                   " weights but ranks lists " + ranks_text(spec.ranks) +
                   "; a weight list applies to the ranks value equal to its length");
  }
}

/// What would make global batches split under batch_split entry `split` ("" for weight lists).
std::string split_fix(const SweepSpec& spec, std::size_t split) {
  if (is_profiled_split(spec.batch_split[split]))
    return "; batch_split '" + spec.batch_split[split] +
           "' needs a global_batch of at least every ranks value";
  if (spec.split_weights[split].empty())
    return "; use a global_batch divisible by every ranks value, or an explicit weight list";
  return "";
}

void check_splits(const TableReader& sweep, const SweepSpec& spec,
                  const std::vector<Located<int>>& ranks,
                  const std::vector<Located<int>>& global_batch) {
  for (const Located<int>& count : ranks) {
    bool covered = false;
    for (std::size_t split = 0; split < spec.batch_split.size(); ++split) {
      if (!split_applies(spec, split, count.value)) continue;
      covered = true;
      for (const Located<int>& batch : global_batch) {
        try {
          per_rank_batch(spec, split, batch.value, count.value);
        } catch (const std::invalid_argument& e) {
          sweep.fail(*batch.node, "global_batch", e.what() + split_fix(spec, split));
        }
      }
    }
    if (!covered)
      sweep.fail(*count.node, "ranks",
                 "no batch_split entry applies to " + std::to_string(count.value) +
                     " ranks; add \"even\" or a weight list of that length");
  }
}

DlrmSharding read_sharding_value(const TableReader& sweep, const toml::node& element,
                                 const DlrmOptions& options) {
  std::string sharding = sweep.as_string(element, "sharding");
  for (const ShardingScheme scheme : kShardingSchemes)
    if (sharding_scheme_text(scheme) == sharding) return DlrmSharding{scheme, "", nullptr};
  if (sharding == sharding_scheme_text(ShardingScheme::automatic))
    return DlrmSharding{ShardingScheme::automatic, "", nullptr};
  if (std::ranges::find(options.plans, sharding, &ExplicitPlan::name) != options.plans.end())
    return DlrmSharding{ShardingScheme::explicit_plan, sharding, nullptr};
  std::vector<std::string_view> known;
  for (const ShardingScheme scheme : kShardingSchemes)
    known.push_back(sharding_scheme_text(scheme));
  known.push_back(sharding_scheme_text(ShardingScheme::automatic));
  for (const ExplicitPlan& plan : options.plans) known.push_back(plan.name);
  sweep.fail(element, "sharding",
             "unknown sharding '" + sharding + "'; expected one of " + join(known, ", ") +
                 " (built-in schemes, auto, and the plans of [workload.plans])" +
                 did_you_mean(sharding, known));
}

/// [sweep] sharding: required for a kind that sweeps it, an error for the others (empty result).
std::vector<Located<DlrmSharding>> read_shardings(const TableReader& sweep,
                                                  const WorkloadKind& kind,
                                                  const WorkloadSpec& workload) {
  const toml::node* node = sweep.find("sharding");
  if (!kind.sweeps_sharding) {
    if (node != nullptr)
      sweep.fail(
          *node, "sharding",
          "sharding is not used by workload.kind = \"" + std::string(kind.name) +
              "\": only kind dlrm shards embedding tables; remove it" +
              (kind.sweeps_state_sharding ? " (state_sharding shards the training state)" : ""));
    return {};
  }
  if (node == nullptr)
    throw JobError(std::string(sweep.file()), 0, 0, "sharding",
                   "sharding is required for workload kind " + std::string(kind.name) +
                       "; e.g. sharding = [\"table_wise\", \"row_wise\"]");
  return read_list<DlrmSharding>(sweep, "sharding", "a list of strings", {},
                                 [&](const toml::node& element) {
                                   return read_sharding_value(sweep, element, workload.dlrm);
                                 });
}

StateSharding read_state_sharding_value(const TableReader& sweep, const toml::node& element) {
  const std::string value = sweep.as_string(element, "state_sharding");
  if (const std::optional<StateSharding> sharding = state_sharding_from_text(value))
    return *sharding;
  std::vector<std::string> texts;
  for (const StateSharding& known : kStateShardings) texts.push_back(state_sharding_text(known));
  const std::vector<std::string_view> words(texts.begin(), texts.end());
  sweep.fail(element, "state_sharding",
             "unknown state_sharding '" + value + "'; expected one of " + join(words, ", ") +
                 did_you_mean(value, words));
}

/// [sweep] state_sharding: optional (default ["replicated"]) for a kind that sweeps it, an
/// error for the others (empty result).
std::vector<Located<StateSharding>> read_state_shardings(const TableReader& sweep,
                                                         const WorkloadKind& kind) {
  const toml::node* node = sweep.find("state_sharding");
  if (!kind.sweeps_state_sharding) {
    if (node != nullptr)
      sweep.fail(*node, "state_sharding",
                 "state_sharding is not used by workload.kind = \"" + std::string(kind.name) +
                     "\": only kind transformer shards its training state; remove it");
    return {};
  }
  return read_list<StateSharding>(
      sweep, "state_sharding", "a list of strings", {StateSharding{}},
      [&](const toml::node& element) { return read_state_sharding_value(sweep, element); });
}

/// Every explicit plan applies to some ranks value, and every ranks value has a sharding.
void check_shardings(const TableReader& sweep, const WorkloadSpec& workload,
                     const std::vector<Located<int>>& ranks,
                     const std::vector<Located<DlrmSharding>>& shardings) {
  const std::vector<int> counts = values_of(ranks);
  for (const Located<DlrmSharding>& sharding : shardings) {
    if (sharding.value.scheme != ShardingScheme::explicit_plan) continue;
    const auto plan =
        std::ranges::find(workload.dlrm.plans, sharding.value.plan, &ExplicitPlan::name);
    if (std::ranges::max(counts) >= min_ranks(*plan)) continue;
    const int needed = min_ranks(*plan);
    sweep.fail(*sharding.node, "sharding",
               "plan '" + sharding.value.plan + "' places a shard on rank " +
                   std::to_string(needed - 1) + ", so it needs at least " +
                   counted(needed, "rank") + ", but ranks lists " + ranks_text(counts) +
                   "; add a ranks value of " + std::to_string(needed) +
                   " or more, or change the plan's ranks");
  }
  for (const Located<int>& count : ranks)
    if (std::ranges::none_of(shardings, [&](const Located<DlrmSharding>& sharding) {
          return sharding_applies(workload.dlrm, sharding.value, count.value);
        }))
      sweep.fail(*count.node, "ranks",
                 "no sharding entry applies to " + counted(count.value, "rank") +
                     " (each plan listed needs more); add a built-in scheme such as "
                     "\"table_wise\" to sharding");
}

/// For a kind that sweeps ranks only: throws at the first of global_batch, batch_split,
/// precision, sharding and state_sharding that is present.
void reject_batch_keys(const TableReader& sweep, const WorkloadKind& kind) {
  for (const std::string_view key : std::span(kKeys).subspan(1)) {
    const toml::node* node = sweep.find(key);
    if (node == nullptr) continue;
    sweep.fail(*node, key,
               std::string(key) + " is not used by workload.kind = \"" + std::string(kind.name) +
                   "\": the benchmark sweeps ranks only; remove it");
  }
}

}  // namespace

SweepSpec read_sweep(const TableReader& sweep, const WorkloadSpec& workload,
                     DeviceKindRequest devices) {
  const WorkloadKind& kind = workload_kind(workload.kind);
  sweep.reject_unknown_keys(kKeys);
  if (!kind.sweeps_batch) {
    reject_batch_keys(sweep, kind);
    const SweepSpec spec{.ranks = values_of(read_counts(sweep, "ranks", kMaxRanks)),
                         .global_batch = {},
                         .batch_split = {},
                         .split_weights = {},
                         .precision = {},
                         .sharding = {},
                         .state_sharding = {}};
    check_sweep_size(sweep, spec);
    return spec;
  }
  const std::vector<Located<int>> ranks = read_counts(sweep, "ranks", kMaxRanks);
  const std::vector<Located<int>> global_batch =
      read_counts(sweep, "global_batch", kMaxGlobalBatch);
  const std::vector<Located<Split>> splits = read_splits(sweep, kind);
  const std::vector<Located<DataType>> precision = read_list<DataType>(
      sweep, "precision", "a list of strings", {DataType::fp32},
      [&](const toml::node& element) { return read_precision(sweep, element, kind, devices); });
  const std::vector<Located<DlrmSharding>> shardings = read_shardings(sweep, kind, workload);
  const std::vector<Located<StateSharding>> state_shardings = read_state_shardings(sweep, kind);
  const SweepSpec spec =
      to_spec(ranks, global_batch, splits, precision, shardings, state_shardings);
  check_weight_lengths(sweep, spec, splits);
  check_sweep_size(sweep, spec);  // before check_splits splits every batch
  check_splits(sweep, spec, ranks, global_batch);
  if (kind.sweeps_sharding) check_shardings(sweep, workload, ranks, shardings);
  return spec;
}

}  // namespace scaletune::job::detail
