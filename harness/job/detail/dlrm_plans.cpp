#include "harness/job/detail/dlrm_plans.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "harness/job/detail/edit_distance.hpp"
#include "harness/job/detail/job_info.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 2> kPlacementKeys = {"split", "ranks"};

/// The ranks list `node` of a sharded split: non-empty, distinct, one rank for table_wise.
std::vector<int> read_rank_list(const TableReader& placement, const toml::node& node,
                                ShardSplit split) {
  const toml::array* list = node.as_array();
  if (list == nullptr) placement.fail_type(node, "ranks", "a list of integers (rank numbers)");
  if (list->empty()) placement.fail(node, "ranks", "ranks must not be an empty list");
  if (split == ShardSplit::table_wise && list->size() != 1)
    placement.fail(node, "ranks",
                   "split \"table_wise\" places the whole table on one rank; ranks must list "
                   "exactly one rank, found " +
                       std::to_string(list->size()));
  std::vector<int> ranks;
  for (const toml::node& element : *list) {
    const int rank = static_cast<int>(placement.as_integer(element, "ranks", 0, kMaxPlanRank));
    if (std::ranges::find(ranks, rank) != ranks.end())
      placement.fail(element, "ranks",
                     "ranks lists rank " + std::to_string(rank) + " twice; list each rank once");
    ranks.push_back(rank);
  }
  return ranks;
}

/// The ranks of a placement at `where`: none for data_parallel, else read_rank_list.
std::vector<int> read_ranks(const TableReader& placement, const toml::node& where,
                            ShardSplit split) {
  const toml::node* node = placement.find("ranks");
  if (split != ShardSplit::data_parallel) {
    if (node == nullptr)
      placement.fail(
          where, "ranks",
          "split \"" + std::string(shard_split_text(split)) + "\" needs ranks, e.g. ranks = [0]");
    return read_rank_list(placement, *node, split);
  }
  if (node != nullptr)
    placement.fail(*node, "ranks",
                   "split \"data_parallel\" replicates the table on every rank and takes no "
                   "ranks; remove ranks");
  return {};
}

TablePlacement read_placement(const TableReader& plan, const toml::node& node,
                              const std::string& plan_name, const std::string& table) {
  if (!node.is_table()) plan.fail_type(node, table, "a table { split = \"...\", ranks = [...] }");
  const TableReader placement(node.as_table(), "workload.plans." + plan_name + "." + table,
                              plan.file());
  placement.reject_unknown_keys(kPlacementKeys);
  if (placement.find("split") == nullptr)
    placement.fail(node, "split",
                   "placement of table '" + table + "' needs split, one of " +
                       join(words_of(kShardSplits, shard_split_text), ", "));
  TablePlacement result{.table = table,
                        .split = placement.choice("split", kShardSplits, shard_split_text).value(),
                        .ranks = {}};
  result.ranks = read_ranks(placement, node, result.split);
  return result;
}

std::string check_plan_name(const TableReader& plans, const toml::node& node,
                            std::string_view name) {
  // A scheme's configuration ids write ':' as '-': a plan named so would share its ids.
  const auto as_in_ids = [](std::string_view scheme) {
    std::string text(scheme);
    std::ranges::replace(text, ':', '-');
    return text;
  };
  if (name == sharding_scheme_text(ShardingScheme::automatic) ||
      std::ranges::any_of(kShardingSchemes, [&](ShardingScheme scheme) {
        const std::string_view text = sharding_scheme_text(scheme);
        return text == name || as_in_ids(text) == name;
      }))
    plans.fail(
        node, name,
        "plan name '" + std::string(name) +
            "' is (or reads in configuration ids as) a built-in sharding scheme or auto; give "
            "the plan another name");
  if (!valid_name(name))
    plans.fail(node, name,
               "plan name '" + std::string(name) +
                   "' is not valid; use 1 to 128 characters of A-Z a-z 0-9 . _ -, not starting "
                   "with '.' or '-'");
  return std::string(name);
}

ExplicitPlan read_plan(const TableReader& plans, std::string_view name,
                       const std::vector<EmbeddingTableSpec>& tables) {
  const toml::node& node = *plans.find(name);
  if (!node.is_table())
    plans.fail_type(node, name,
                    "a table of placements ([workload.plans." + std::string(name) + "])");
  ExplicitPlan plan{.name = check_plan_name(plans, node, name), .tables = {}};
  const TableReader reader(node.as_table(), "workload.plans." + plan.name, plans.file());
  std::vector<std::string_view> table_names;
  for (const EmbeddingTableSpec& table : tables) table_names.push_back(table.name);
  for (const std::string_view key : reader.keys())
    if (std::ranges::find(table_names, key) == table_names.end())
      reader.fail(*reader.find(key), key,
                  "plan '" + plan.name + "' places unknown table '" + std::string(key) + "'" +
                      did_you_mean(key, table_names));
  for (const EmbeddingTableSpec& table : tables) {
    const toml::node* placement = reader.find(table.name);
    if (placement == nullptr)
      plans.fail(node, name,
                 "plan '" + plan.name + "' does not place table '" + table.name +
                     "'; every table needs one entry, e.g. " + table.name +
                     " = { split = \"table_wise\", ranks = [0] }");
    plan.tables.push_back(read_placement(reader, *placement, plan.name, table.name));
  }
  return plan;
}

}  // namespace

std::vector<ExplicitPlan> read_dlrm_plans(const TableReader& workload,
                                          const std::vector<EmbeddingTableSpec>& tables) {
  const TableReader plans = workload.table("plans");
  std::vector<ExplicitPlan> result;
  for (const std::string_view name : plans.keys()) result.push_back(read_plan(plans, name, tables));
  std::ranges::sort(result, {}, &ExplicitPlan::name);
  return result;
}

}  // namespace scaletune::job::detail
