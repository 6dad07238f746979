#pragma once
// Choosing a DLRM sharding plan by prediction (`sharding = "auto"`; Lin et al., TPDS 2025,
// section 6: the fastest plan picked from predicted step times, not by benchmarking every plan).
// The candidates are the built-in schemes and a search over table-wise (on any rank), row-wise,
// column-wise and data-parallel placement per table. Each is estimated from the tables'
// placement costs (shard_costs.hpp) along the step's synchronisation points:
//
//   estimate = max_r F_r + 2 A + max_r G_r + (replicas ? max_r B_r + R + max_r U_r
//                                                      : max_r (B_r + U_r))
//
// with F_r, B_r, U_r rank r's summed forward, backward and update times of the shards it
// holds, G_r its gather and scatter copies, A the pooled-embedding all-to-all (forward, and the
// same bytes backward) and R the replicas' gradient all-reduces. The barrier before the
// exchange and the blocking all-to-alls synchronise the ranks, so each segment costs its slowest
// rank. The dense part of the step is the same for every plan and left out.
//
// The search places tables in decreasing table-wise cost, each where the estimate grows least
// (ties: table-wise on the lowest rank, then row-wise, column-wise, data-parallel), then moves
// single tables while that lowers the estimate (at most kSearchPasses passes over the tables);
// it also starts from the best built-in plan and keeps the better result.

#include <optional>
#include <string>
#include <vector>

#include "harness/job/job.hpp"
#include "kernels/dlrm/shard_costs.hpp"

namespace scaletune::kernels {

/// The name of the search's candidate (PlanEstimate::name, job::ShardingCandidate::name).
inline constexpr const char* kSearchPlanName = "search";

/// Improvement passes of the search after its greedy placement.
inline constexpr int kSearchPasses = 3;

/// One candidate plan and its estimate.
struct PlanEstimate {
  std::string name;             ///< a built-in scheme's text, or "search"
  job::ExplicitPlan placement;  ///< every table placed, named "auto"
  double embedding_s = 0.0;     ///< the plan-dependent part of the step, s (the estimate above)
};

/// The estimate (s) of built-in scheme `scheme` (any of job::kShardingSchemes) on
/// costs.size() == options.tables.size() tables and per_rank_batch.size() ranks.
/// Throws std::invalid_argument for mismatched sizes or a scheme that is not built in.
PlanEstimate estimate_scheme(job::ShardingScheme scheme, const std::vector<TableCosts>& costs,
                             const job::DlrmOptions& options,
                             const std::vector<int>& per_rank_batch, const StepCostModel& model);

/// The estimate (s) of `plan`: each table table_wise on one rank, data_parallel, or row_wise or
/// column_wise over every rank in rank order (the placements the search makes). Throws
/// std::invalid_argument for mismatched sizes, a table the plan does not place (by name, in
/// table order) or another placement.
PlanEstimate estimate_plan(const job::ExplicitPlan& plan, const std::vector<TableCosts>& costs,
                           const job::DlrmOptions& options, const std::vector<int>& per_rank_batch,
                           const StepCostModel& model);

/// The search's plan and its estimate (name "search"): the greedy placement improved by moves,
/// and, when `start` is given, that built-in scheme's plan improved by moves; the better of
/// the two (so never worse than `start`'s estimate). Throws as estimate_scheme.
PlanEstimate search_plan(const std::vector<TableCosts>& costs, const job::DlrmOptions& options,
                         const std::vector<int>& per_rank_batch, const StepCostModel& model,
                         std::optional<job::ShardingScheme> start = std::nullopt);

/// Every built-in scheme and the search (started also from the built-in scheme with the best
/// estimate), fastest estimate first (ties: kShardingSchemes order, the search last). Throws as
/// estimate_scheme.
std::vector<PlanEstimate> sharding_candidates(const std::vector<TableCosts>& costs,
                                              const job::DlrmOptions& options,
                                              const std::vector<int>& per_rank_batch,
                                              const StepCostModel& model);

}  // namespace scaletune::kernels
