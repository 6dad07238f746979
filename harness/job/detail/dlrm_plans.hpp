#pragma once
// The explicit sharding plans of a "dlrm" job: [workload.plans.NAME].

#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Largest rank a plan may name (ranks are in [0, 2^20)).
constexpr int kMaxPlanRank = (1 << 20) - 1;

/// Reads `plans` of [workload] (absent: none): a table of plans, each `[workload.plans.NAME]`
/// with NAME following the job-name rules (valid_name) and not a kShardingSchemes value, and
/// one entry per table of `tables`: `TABLE = { split = "table_wise" | "row_wise" |
/// "column_wise" | "data_parallel", ranks = [...] }`. table_wise takes exactly one rank,
/// row_wise and column_wise one or more distinct ranks, data_parallel no ranks key; each rank
/// is an integer in [0, 2^20). Every table is placed exactly once; an unknown table name is an
/// error with a did-you-mean hint. Returns the plans sorted by name, each plan's placements in
/// table order. Throws JobError at the offending node.
std::vector<ExplicitPlan> read_dlrm_plans(const TableReader& workload,
                                          const std::vector<EmbeddingTableSpec>& tables);

}  // namespace scaletune::job::detail
