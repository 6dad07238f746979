// Sharding plans of the DLRM embedding tables: the built-in schemes, explicit plans from the
// job file, and the plan's text form.

#include "kernels/dlrm/sharding_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::kernels {

namespace {

/// Start of block `index` of `total` items split over `parts`: floor(index * total / parts),
/// computed as index * q + floor(index * r / parts) with total = q * parts + r, so no product
/// exceeds max(total, parts^2) (exact for total up to 2^62 and parts up to 2^31).
std::int64_t block_begin(std::int64_t total, std::int64_t index, std::int64_t parts) {
  const std::int64_t quotient = total / parts;
  const std::int64_t remainder = total % parts;
  return index * quotient + index * remainder / parts;
}

Shard whole_table(int rank, const job::EmbeddingTableSpec& table) {
  return Shard{rank, 0, table.rows, 0, table.dim};
}

TableSharding table_wise(int rank, const job::EmbeddingTableSpec& table) {
  return TableSharding{ShardSplit::table_wise, {whole_table(rank, table)}};
}

TableSharding row_wise(const std::vector<int>& ranks, const job::EmbeddingTableSpec& table) {
  TableSharding sharding{ShardSplit::row_wise, {}};
  const auto parts = static_cast<std::int64_t>(ranks.size());
  for (std::int64_t i = 0; i < parts; ++i) {
    sharding.shards.push_back(Shard{ranks[static_cast<std::size_t>(i)],
                                    block_begin(table.rows, i, parts),
                                    block_begin(table.rows, i + 1, parts), 0, table.dim});
  }
  return sharding;
}

TableSharding column_wise(const std::vector<int>& ranks, const job::EmbeddingTableSpec& table) {
  TableSharding sharding{ShardSplit::column_wise, {}};
  const auto parts = static_cast<std::int64_t>(ranks.size());
  for (std::int64_t i = 0; i < parts; ++i) {
    const auto begin = static_cast<int>(block_begin(table.dim, i, parts));
    const auto end = static_cast<int>(block_begin(table.dim, i + 1, parts));
    if (begin == end) continue;
    sharding.shards.push_back(Shard{ranks[static_cast<std::size_t>(i)], 0, table.rows, begin, end});
  }
  return sharding;
}

TableSharding data_parallel(int ranks, const job::EmbeddingTableSpec& table) {
  TableSharding sharding{ShardSplit::data_parallel, {}};
  for (int rank = 0; rank < ranks; ++rank) sharding.shards.push_back(whole_table(rank, table));
  return sharding;
}

std::vector<int> all_ranks(int ranks) {
  std::vector<int> list(static_cast<std::size_t>(ranks));
  std::iota(list.begin(), list.end(), 0);
  return list;
}

/// Greedy placement: tables in decreasing cost (stable: ties keep table order), each on the
/// rank with the least total cost so far (ties: the lowest rank).
std::vector<TableSharding> greedy(const std::vector<job::EmbeddingTableSpec>& tables, int ranks,
                                  const std::vector<double>& costs) {
  std::vector<std::size_t> order(tables.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  std::vector<TableSharding> placed(tables.size());
  for (const auto t : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    load[static_cast<std::size_t>(least)] += costs[t];
    placed[t] = table_wise(static_cast<int>(least), tables[t]);
  }
  return placed;
}

/// cost(table) of every table, in table order.
template <typename Cost>
std::vector<double> costs_of(const std::vector<job::EmbeddingTableSpec>& tables, Cost cost) {
  std::vector<double> costs;
  for (const auto& table : tables) costs.push_back(cost(table));
  return costs;
}

double size_cost(const job::EmbeddingTableSpec& table) {
  return static_cast<double>(table.rows) * table.dim * 4.0;
}

double lookup_cost(const job::EmbeddingTableSpec& table) {
  return static_cast<double>(table.rows) * table.pooling * table.dim;
}

/// DreamShard's size-lookup cost: dim x pooling x log10(rows).
double size_lookup_cost(const job::EmbeddingTableSpec& table) {
  return table.dim * table.pooling * std::log10(static_cast<double>(table.rows));
}

/// x divided by its largest value (all 0 when the largest is 0).
std::vector<double> normalised(std::vector<double> x) {
  const double top = x.empty() ? 0.0 : *std::max_element(x.begin(), x.end());
  for (double& v : x) v = top > 0.0 ? v / top : 0.0;
  return x;
}

/// dim x pooling and rows x dim, each divided by its largest value over the tables, summed.
std::vector<double> norm_lookup_costs(const std::vector<job::EmbeddingTableSpec>& tables) {
  const std::vector<double> lookups = normalised(
      costs_of(tables, [](const job::EmbeddingTableSpec& t) { return t.dim * t.pooling; }));
  const std::vector<double> sizes = normalised(costs_of(tables, size_cost));
  std::vector<double> costs;
  for (std::size_t t = 0; t < tables.size(); ++t) costs.push_back(lookups[t] + sizes[t]);
  return costs;
}

/// Each table on a rank drawn uniformly (std::mt19937_64 seeded with 1), in table order.
std::vector<TableSharding> random_tables(const std::vector<job::EmbeddingTableSpec>& tables,
                                         int ranks) {
  std::mt19937_64 engine(1);
  std::uniform_int_distribution<int> rank(0, ranks - 1);
  std::vector<TableSharding> placed;
  for (const auto& table : tables) placed.push_back(table_wise(rank(engine), table));
  return placed;
}

/// Applies `place` to every table, in table order.
template <typename Place>
std::vector<TableSharding> each_table(const std::vector<job::EmbeddingTableSpec>& tables,
                                      Place place) {
  std::vector<TableSharding> placed;
  for (std::size_t t = 0; t < tables.size(); ++t) placed.push_back(place(t, tables[t]));
  return placed;
}

/// The placement of built-in scheme `scheme` (not explicit_plan).
std::vector<TableSharding> built_in(job::ShardingScheme scheme,
                                    const std::vector<job::EmbeddingTableSpec>& tables, int ranks) {
  const auto everyone = all_ranks(ranks);
  switch (scheme) {
    case job::ShardingScheme::data_parallel:
      return each_table(tables,
                        [&](std::size_t, const auto& t) { return data_parallel(ranks, t); });
    case job::ShardingScheme::row_wise:
      return each_table(tables, [&](std::size_t, const auto& t) { return row_wise(everyone, t); });
    case job::ShardingScheme::column_wise:
      return each_table(tables,
                        [&](std::size_t, const auto& t) { return column_wise(everyone, t); });
    case job::ShardingScheme::table_wise:
      return each_table(tables, [&](std::size_t i, const auto& t) {
        return table_wise(static_cast<int>(i % static_cast<std::size_t>(ranks)), t);
      });
    case job::ShardingScheme::table_wise_size_greedy:
      return greedy(tables, ranks, costs_of(tables, size_cost));
    case job::ShardingScheme::table_wise_lookup_greedy:
      return greedy(tables, ranks, costs_of(tables, lookup_cost));
    case job::ShardingScheme::table_wise_size_lookup_greedy:
      return greedy(tables, ranks, costs_of(tables, size_lookup_cost));
    case job::ShardingScheme::table_wise_norm_lookup_greedy:
      return greedy(tables, ranks, norm_lookup_costs(tables));
    case job::ShardingScheme::table_wise_random:
      return random_tables(tables, ranks);
    case job::ShardingScheme::explicit_plan:
    case job::ShardingScheme::automatic:
      break;
  }
  throw std::invalid_argument("sharding: an explicit or automatic plan is not a built-in scheme");
}

std::string plan_error(const job::ExplicitPlan& plan, const std::string& table,
                       const std::string& what) {
  return "sharding plan '" + plan.name + "', table '" + table + "': " + what;
}

/// Checks that every rank of `placement` lies in [0, ranks) and that their count suits the split.
void check_ranks(const job::ExplicitPlan& plan, const job::TablePlacement& placement, int ranks) {
  for (const int rank : placement.ranks) {
    if (rank < 0 || rank >= ranks) {
      throw std::invalid_argument(
          plan_error(plan, placement.table,
                     "rank " + std::to_string(rank) + " is outside the configuration's " +
                         std::to_string(ranks) + " ranks (expected a rank in [0, " +
                         std::to_string(ranks - 1) + "])"));
    }
  }
  const std::size_t count = placement.ranks.size();
  const bool wrong_count = placement.split == ShardSplit::table_wise
                               ? count != 1
                               : placement.split != ShardSplit::data_parallel && count == 0;
  if (wrong_count) {
    throw std::invalid_argument(
        plan_error(plan, placement.table,
                   "split '" + std::string(job::shard_split_text(placement.split)) + "' got " +
                       std::to_string(count) +
                       " ranks (expected exactly one for table_wise, at least one for row_wise and "
                       "column_wise)"));
  }
}

TableSharding place_explicit(const job::ExplicitPlan& plan, const job::TablePlacement& placement,
                             const job::EmbeddingTableSpec& table, int ranks) {
  check_ranks(plan, placement, ranks);
  switch (placement.split) {
    case ShardSplit::table_wise:
      return table_wise(placement.ranks.front(), table);
    case ShardSplit::row_wise:
      return row_wise(placement.ranks, table);
    case ShardSplit::column_wise:
      return column_wise(placement.ranks, table);
    case ShardSplit::data_parallel:
      break;
  }
  return data_parallel(ranks, table);
}

const job::TablePlacement& placement_of(const job::ExplicitPlan& plan, const std::string& table) {
  const auto found = std::find_if(plan.tables.begin(), plan.tables.end(),
                                  [&](const auto& p) { return p.table == table; });
  if (found == plan.tables.end()) {
    throw std::invalid_argument(
        plan_error(plan, table,
                   "the plan does not place this table (expected one entry per "
                   "table of the workload)"));
  }
  return *found;
}

/// Throws when the plan places a table the options do not have.
void check_known_tables(const job::ExplicitPlan& plan,
                        const std::vector<job::EmbeddingTableSpec>& tables) {
  for (const auto& placement : plan.tables) {
    const bool known = std::any_of(tables.begin(), tables.end(),
                                   [&](const auto& t) { return t.name == placement.table; });
    if (!known) {
      throw std::invalid_argument(
          plan_error(plan, placement.table, "no such table in the workload's tables"));
    }
  }
}

std::vector<TableSharding> explicit_plan(const job::ExplicitPlan& plan,
                                         const std::vector<job::EmbeddingTableSpec>& tables,
                                         int ranks) {
  check_known_tables(plan, tables);
  return each_table(tables, [&](std::size_t, const auto& t) {
    return place_explicit(plan, placement_of(plan, t.name), t, ranks);
  });
}

std::string unknown_plan(const std::string& name, const job::DlrmOptions& options) {
  std::string expected;
  for (const auto& plan : options.plans)
    expected += (expected.empty() ? "'" : ", '") + plan.name + "'";
  return "unknown sharding plan '" + name +
         "' (the workload's plans: " + (expected.empty() ? "none" : expected) + ")";
}

std::string describe_shard(ShardSplit split, const Shard& shard) {
  const auto rank = "r" + std::to_string(shard.rank);
  switch (split) {
    case ShardSplit::row_wise:
      return rank + ":rows=" + std::to_string(shard.row_begin) + "-" +
             std::to_string(shard.row_end);
    case ShardSplit::column_wise:
      return rank + ":cols=" + std::to_string(shard.col_begin) + "-" +
             std::to_string(shard.col_end);
    case ShardSplit::table_wise:
    case ShardSplit::data_parallel:
      break;
  }
  return rank;
}

std::string describe_table(const std::string& name, const TableSharding& table) {
  std::string text = name + ":" + std::string(job::shard_split_text(table.split)) + "[";
  if (table.split == ShardSplit::data_parallel) return text + "all]";
  for (std::size_t s = 0; s < table.shards.size(); ++s) {
    text += (s == 0 ? "" : ",") + describe_shard(table.split, table.shards[s]);
  }
  return text + "]";
}

}  // namespace

ShardingPlan make_sharding_plan(const job::DlrmSharding& sharding, const job::DlrmOptions& options,
                                int ranks) {
  ShardingPlan plan{job::sharding_text(sharding), ranks, {}};
  if (ranks < 1) {
    throw std::invalid_argument("sharding '" + plan.name + "': ranks = " + std::to_string(ranks) +
                                " (expected at least 1)");
  }
  if (sharding.scheme == job::ShardingScheme::automatic) {
    if (!sharding.choice)
      throw std::invalid_argument(
          "sharding 'auto': no plan was chosen for this configuration (sharding = \"auto\" needs "
          "a performance model: [predict] model = \"MODEL.h5\" in the job file, or --model "
          "MODEL.h5)");
    if (!sharding.choice->error.empty())
      throw std::invalid_argument("sharding 'auto': " + sharding.choice->error);
    plan.tables = explicit_plan(sharding.choice->plan, options.tables, ranks);
    return plan;
  }
  if (sharding.scheme != job::ShardingScheme::explicit_plan) {
    plan.tables = built_in(sharding.scheme, options.tables, ranks);
    return plan;
  }
  const auto found = std::find_if(options.plans.begin(), options.plans.end(),
                                  [&](const auto& p) { return p.name == sharding.plan; });
  if (found == options.plans.end()) {
    throw std::invalid_argument(unknown_plan(sharding.plan, options));
  }
  plan.tables = explicit_plan(*found, options.tables, ranks);
  return plan;
}

std::string describe_plan(const ShardingPlan& plan, const job::DlrmOptions& options) {
  if (plan.tables.size() != options.tables.size()) {
    throw std::invalid_argument("sharding plan '" + plan.name + "' has " +
                                std::to_string(plan.tables.size()) + " tables, the options " +
                                std::to_string(options.tables.size()) + " (expected equal)");
  }
  std::string text;
  for (std::size_t t = 0; t < plan.tables.size(); ++t) {
    text += (t == 0 ? "" : "; ") + describe_table(options.tables[t].name, plan.tables[t]);
  }
  return text;
}

}  // namespace scaletune::kernels
