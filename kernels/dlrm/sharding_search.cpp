// Sharding plans estimated from per-table placement costs, and the per-table search.

#include "kernels/dlrm/sharding_search.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

#include "kernels/dlrm/sharding_plan.hpp"

namespace scaletune::kernels {
namespace {

/// Where one table goes: its split, and for table_wise the rank.
struct Option {
  ShardSplit split = ShardSplit::table_wise;
  int rank = 0;
};

const PlacementCost& cost_of(const TableCosts& c, ShardSplit split) {
  switch (split) {
    case ShardSplit::row_wise:
      return c.row_wise;
    case ShardSplit::column_wise:
      return c.column_wise;
    case ShardSplit::data_parallel:
      return c.data_parallel;
    case ShardSplit::table_wise:
      break;
  }
  return c.table_wise;
}

/// The all-to-all's time by its largest per-rank column count, memoised.
class Exchange {
 public:
  Exchange(const std::vector<int>& batch, const StepCostModel& model)
      : m_batch(batch), m_model(model) {
    m_even = std::ranges::all_of(batch, [&](int b) { return b == batch.front(); });
  }

  /// One all-to-all when every rank holds `max_cols` (uniform) or at most that many columns.
  double time(std::int64_t max_cols, bool uniform) {
    const bool plain = uniform && m_even;
    if (plain && max_cols == 0) return 0.0;  // nothing to send: the step skips it
    const auto key = std::make_pair(max_cols, plain);
    if (const auto it = m_memo.find(key); it != m_memo.end()) return it->second;
    const auto n = static_cast<std::int64_t>(m_batch.size());
    const std::int64_t block = *std::ranges::max_element(m_batch) * max_cols;
    trace::Collective c;
    c.op = plain ? "alltoall" : "alltoallv";
    c.dtype = "fp32";
    c.count = block * n;
    c.bytes = block * n * 4;
    c.participants = static_cast<int>(n);
    return m_memo[key] = m_model.collective_time(c);
  }

 private:
  const std::vector<int>& m_batch;
  const StepCostModel& m_model;
  bool m_even = true;
  std::map<std::pair<std::int64_t, bool>, double> m_memo;
};

/// Each rank's summed costs under a partial or whole plan.
class Loads {
 public:
  Loads(std::size_t ranks, Exchange& exchange)
      : m_forward(ranks),
        m_backward(ranks),
        m_update(ranks),
        m_gather(ranks),
        m_cols(ranks),
        m_exchange(exchange) {}

  /// Adds (sign +1) or removes (-1) table costs `c` placed as `o`.
  void apply(const TableCosts& c, Option o, int sign) {
    const PlacementCost& p = cost_of(c, o.split);
    for (std::size_t i = 0; i < p.parts.size(); ++i) {
      const auto r = o.split == ShardSplit::table_wise ? static_cast<std::size_t>(o.rank) : i;
      m_forward[r] += sign * p.parts[i].forward;
      m_backward[r] += sign * p.parts[i].backward;
      m_update[r] += sign * p.parts[i].update;
      m_cols[r] += sign * p.cols[i];
    }
    for (std::size_t r = 0; r < m_gather.size(); ++r) m_gather[r] += sign * p.receivers[r];
    if (o.split == ShardSplit::data_parallel) {
      m_replicas += sign;
      m_all_reduce += sign * c.replica_all_reduce_s;
    }
  }

  /// The estimate of sharding_search.hpp, s.
  double estimate() const {
    const auto [least, most] = std::ranges::minmax(m_cols);
    double tail = 0.0;
    if (m_replicas > 0) {
      tail = std::ranges::max(m_backward) + m_all_reduce + std::ranges::max(m_update);
    } else {
      for (std::size_t r = 0; r < m_backward.size(); ++r)
        tail = std::max(tail, m_backward[r] + m_update[r]);
    }
    return std::ranges::max(m_forward) + 2.0 * m_exchange.time(most, least == most) +
           std::ranges::max(m_gather) + tail;
  }

 private:
  std::vector<double> m_forward, m_backward, m_update, m_gather;
  std::vector<std::int64_t> m_cols;
  Exchange& m_exchange;
  int m_replicas = 0;
  double m_all_reduce = 0.0;
};

void check_sizes(const std::vector<TableCosts>& costs, const job::DlrmOptions& options,
                 const std::vector<int>& batch) {
  if (costs.size() != options.tables.size() || batch.empty())
    throw std::invalid_argument("sharding search: costs of " + std::to_string(costs.size()) +
                                " tables for " + std::to_string(options.tables.size()) +
                                " tables on " + std::to_string(batch.size()) +
                                " ranks (expected equal, and ranks >= 1)");
}

/// Ranks 0..ranks-1, the ranks a row- or column-wise placement of the search spans.
std::vector<int> every_rank(std::size_t ranks) {
  std::vector<int> all(ranks);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

job::ExplicitPlan placement_of(const std::vector<Option>& options, const job::DlrmOptions& dlrm,
                               std::size_t ranks) {
  job::ExplicitPlan plan{"auto", {}};
  const std::vector<int> everyone = every_rank(ranks);
  for (std::size_t t = 0; t < options.size(); ++t) {
    job::TablePlacement p{dlrm.tables[t].name, options[t].split, {}};
    if (options[t].split == ShardSplit::table_wise) p.ranks = {options[t].rank};
    if (options[t].split == ShardSplit::row_wise || options[t].split == ShardSplit::column_wise)
      p.ranks = everyone;
    plan.tables.push_back(std::move(p));
  }
  return plan;
}

/// Each table's option in a built-in plan (whose row- and column-wise splits span every rank).
std::vector<Option> options_of(const ShardingPlan& plan) {
  std::vector<Option> options;
  for (const TableSharding& table : plan.tables)
    options.push_back({table.split, table.shards.empty() ? 0 : table.shards.front().rank});
  return options;
}

PlanEstimate estimate_options(std::string name, const std::vector<Option>& options,
                              const std::vector<TableCosts>& costs, const job::DlrmOptions& dlrm,
                              const std::vector<int>& batch, const StepCostModel& model) {
  Exchange exchange(batch, model);
  Loads loads(batch.size(), exchange);
  for (std::size_t t = 0; t < costs.size(); ++t) loads.apply(costs[t], options[t], +1);
  return {std::move(name), placement_of(options, dlrm, batch.size()), loads.estimate()};
}

/// Every option for one table, in tie order.
std::vector<Option> every_option(int ranks) {
  std::vector<Option> all;
  for (int r = 0; r < ranks; ++r) all.push_back({ShardSplit::table_wise, r});
  for (const ShardSplit split :
       {ShardSplit::row_wise, ShardSplit::column_wise, ShardSplit::data_parallel})
    all.push_back({split, 0});
  return all;
}

/// The option of `table` (not in `loads`) that gives the lowest estimate, and that estimate.
std::pair<Option, double> best_option(Loads& loads, const TableCosts& table,
                                      const std::vector<Option>& all) {
  std::pair<Option, double> best{all.front(), 0.0};
  bool first = true;
  for (const Option o : all) {
    loads.apply(table, o, +1);
    const double e = loads.estimate();
    loads.apply(table, o, -1);
    if (first || e < best.second) best = {o, e};
    first = false;
  }
  return best;
}

double whole_table_cost(const TableCosts& c) {
  const ShardTime& t = c.table_wise.parts.front();
  return t.forward + t.backward + t.update;
}

/// The options of built-in scheme `scheme` (checked to be one).
std::vector<Option> scheme_options(job::ShardingScheme scheme, const job::DlrmOptions& options,
                                   int ranks) {
  if (std::ranges::find(job::kShardingSchemes, scheme) == job::kShardingSchemes.end())
    throw std::invalid_argument("estimate_scheme: not a built-in scheme");
  return options_of(make_sharding_plan({scheme, "", nullptr}, options, ranks));
}

/// Moves single tables (in `order`) to their best option while that lowers the estimate, at
/// most kSearchPasses passes; `chosen` is in `loads` before and after.
void improve(Loads& loads, std::vector<Option>& chosen, const std::vector<TableCosts>& costs,
             const std::vector<std::size_t>& order, const std::vector<Option>& all) {
  for (int pass = 0; pass < kSearchPasses; ++pass) {
    bool moved = false;
    for (const std::size_t t : order) {
      const double now = loads.estimate();
      loads.apply(costs[t], chosen[t], -1);
      const auto [option, estimate] = best_option(loads, costs[t], all);
      const bool better = estimate < now;
      if (better) chosen[t] = option;
      moved = moved || better;
      loads.apply(costs[t], chosen[t], +1);
    }
    if (!moved) return;
  }
}

/// The search from `start` (the greedy placement when empty): its options and estimate.
std::pair<std::vector<Option>, double> search_from(std::vector<Option> chosen,
                                                   const std::vector<TableCosts>& costs,
                                                   const std::vector<std::size_t>& order,
                                                   const std::vector<int>& batch,
                                                   const StepCostModel& model) {
  const std::vector<Option> all = every_option(static_cast<int>(batch.size()));
  Exchange exchange(batch, model);
  Loads loads(batch.size(), exchange);
  if (chosen.empty()) {
    chosen.resize(costs.size());
    for (const std::size_t t : order) {
      chosen[t] = best_option(loads, costs[t], all).first;
      loads.apply(costs[t], chosen[t], +1);
    }
  } else {
    for (std::size_t t = 0; t < costs.size(); ++t) loads.apply(costs[t], chosen[t], +1);
  }
  improve(loads, chosen, costs, order, all);
  return {std::move(chosen), loads.estimate()};
}

}  // namespace

PlanEstimate estimate_scheme(job::ShardingScheme scheme, const std::vector<TableCosts>& costs,
                             const job::DlrmOptions& options,
                             const std::vector<int>& per_rank_batch, const StepCostModel& model) {
  check_sizes(costs, options, per_rank_batch);
  return estimate_options(std::string(job::sharding_scheme_text(scheme)),
                          scheme_options(scheme, options, static_cast<int>(per_rank_batch.size())),
                          costs, options, per_rank_batch, model);
}

PlanEstimate estimate_plan(const job::ExplicitPlan& plan, const std::vector<TableCosts>& costs,
                           const job::DlrmOptions& options, const std::vector<int>& per_rank_batch,
                           const StepCostModel& model) {
  check_sizes(costs, options, per_rank_batch);
  const auto ranks = static_cast<int>(per_rank_batch.size());
  const std::vector<int> everyone = every_rank(per_rank_batch.size());
  std::vector<Option> chosen;
  for (std::size_t t = 0; t < costs.size(); ++t) {
    const job::TablePlacement* p = t < plan.tables.size() ? &plan.tables[t] : nullptr;
    const bool named = p != nullptr && p->table == options.tables[t].name;
    const bool fits =
        named && (p->split == ShardSplit::table_wise
                      ? p->ranks.size() == 1 && p->ranks.front() >= 0 && p->ranks.front() < ranks
                  : p->split == ShardSplit::data_parallel ? p->ranks.empty()
                                                          : p->ranks == everyone);
    if (!fits)
      throw std::invalid_argument("estimate_plan: plan '" + plan.name + "' does not place table '" +
                                  options.tables[t].name +
                                  "' as the search does (one rank, every rank in order, or a "
                                  "replica)");
    chosen.push_back({p->split, p->split == ShardSplit::table_wise ? p->ranks.front() : 0});
  }
  return estimate_options(plan.name, chosen, costs, options, per_rank_batch, model);
}

PlanEstimate search_plan(const std::vector<TableCosts>& costs, const job::DlrmOptions& options,
                         const std::vector<int>& per_rank_batch, const StepCostModel& model,
                         std::optional<job::ShardingScheme> start) {
  check_sizes(costs, options, per_rank_batch);
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    return whole_table_cost(costs[a]) > whole_table_cost(costs[b]);
  });
  auto best = search_from({}, costs, order, per_rank_batch, model);
  if (start) {
    auto from_start =
        search_from(scheme_options(*start, options, static_cast<int>(per_rank_batch.size())), costs,
                    order, per_rank_batch, model);
    if (from_start.second < best.second) best = std::move(from_start);
  }
  return {kSearchPlanName, placement_of(best.first, options, per_rank_batch.size()), best.second};
}

std::vector<PlanEstimate> sharding_candidates(const std::vector<TableCosts>& costs,
                                              const job::DlrmOptions& options,
                                              const std::vector<int>& per_rank_batch,
                                              const StepCostModel& model) {
  std::vector<PlanEstimate> candidates;
  for (const job::ShardingScheme scheme : job::kShardingSchemes)
    candidates.push_back(estimate_scheme(scheme, costs, options, per_rank_batch, model));
  const auto best = std::ranges::min_element(candidates, {}, &PlanEstimate::embedding_s);
  const auto scheme = job::kShardingSchemes[static_cast<std::size_t>(best - candidates.begin())];
  candidates.push_back(search_plan(costs, options, per_rank_batch, model, scheme));
  std::ranges::stable_sort(candidates, {}, &PlanEstimate::embedding_s);
  return candidates;
}

}  // namespace scaletune::kernels
