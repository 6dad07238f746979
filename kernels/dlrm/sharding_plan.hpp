#pragma once
// Sharding plans of the DLRM workload's embedding tables: which rank holds which rows and
// columns of which table (the placements TorchRec calls table-wise, row-wise, column-wise and
// data-parallel sharding).

#include <cstdint>
#include <string>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::kernels {

/// How one table is split (the job's split names; job::shard_split_text spells them).
using job::ShardSplit;

/// One rank's piece of a table: rows [row_begin, row_end) and columns [col_begin, col_end).
struct Shard {
  int rank = 0;
  std::int64_t row_begin = 0;
  std::int64_t row_end = 0;
  int col_begin = 0;
  int col_end = 0;

  std::int64_t rows() const { return row_end - row_begin; }
  int cols() const { return col_end - col_begin; }
};

/// Placement of one table. table_wise: one shard with the whole table. row_wise: one shard per
/// listed rank, contiguous row blocks in rank-list order, block i = [i R / k, (i+1) R / k) of
/// R rows over k ranks (a block may be empty when R < k). column_wise: the same split of the
/// dim over k ranks (a rank whose block is empty gets no shard). data_parallel: one shard per
/// rank of the configuration, each the whole table (a replica, not a partition).
struct TableSharding {
  ShardSplit split = ShardSplit::table_wise;
  std::vector<Shard> shards;
};

/// A plan for every table of a workload on a number of ranks.
struct ShardingPlan {
  std::string name;                   ///< the [sweep] sharding value it was made from (its text)
  int ranks = 1;                      ///< ranks of the configuration
  std::vector<TableSharding> tables;  ///< [tables], in the workload's table order
};

/// Makes the plan `sharding` (a built-in scheme, the explicit plan of options.plans it names, or
/// for automatic the plan of its choice) for options.tables on `ranks` ranks. Built-in schemes:
/// data_parallel replicates every table; row_wise / column_wise split every table over all ranks
/// 0..ranks-1; table_wise puts table i on rank i mod ranks; the table_wise greedy schemes
/// (size_greedy, lookup_greedy, size_lookup_greedy, norm_lookup_greedy) take the tables in
/// decreasing cost (ties: lower table index first) and put each on the rank with the least total
/// cost so far (ties: lower rank), the costs of job::ShardingScheme (in double precision);
/// table_wise:random draws each table's rank uniformly from std::mt19937_64 seeded with 1. Explicit
/// plans place each table as its TablePlacement says (data_parallel: on all `ranks`). Row
/// blocks are exact in 64-bit integers for rows up to 2^40 and up to 2^20 ranks.
/// Throws std::invalid_argument for ranks < 1, automatic without a choice, an explicit plan
/// options.plans does not have, or
/// one that names a rank outside [0, ranks), a table the options do not have, misses one of
/// their tables or has a rank count that does not suit its split (the message names the plan,
/// the table and the rank).
ShardingPlan make_sharding_plan(const job::DlrmSharding& sharding, const job::DlrmOptions& options,
                                int ranks);

/// The plan as text for the result attribute `plan`: one "NAME:SPLIT[SHARDS]" per table,
/// joined by "; ", each shard written "rRANK" for a whole table, "rRANK:rows=B-E" (row_wise,
/// end exclusive) or "rRANK:cols=B-E" (column_wise); data_parallel tables write "all".
/// E.g. "t0:table_wise[r1]; t1:row_wise[r0:rows=0-50,r1:rows=50-100]; t2:data_parallel[all]".
/// NAME is options.tables[i].name for plan.tables[i]. Throws std::invalid_argument when the
/// plan and the options have different numbers of tables.
std::string describe_plan(const ShardingPlan& plan, const job::DlrmOptions& options);

}  // namespace scaletune::kernels
