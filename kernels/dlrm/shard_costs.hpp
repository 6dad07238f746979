#pragma once
// What each way of placing an embedding table costs each rank per step, from a performance
// model: the ops the DLRM step issues for a shard (embedding-bag forward and backward, the sparse
// update, the copies that pack and unpack the all-to-all blocks and gather the pooled values
// into the interaction input) as the describing backend records them (describe/op_costs.hpp),
// timed by the model's op_time, and a replica's bucketed gradient all-reduce by its
// collective_time. The sharding search (sharding_search.hpp) adds these up per rank instead of
// describing every candidate plan.

#include <cstdint>
#include <functional>
#include <vector>

#include "harness/job/job.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::kernels {

/// Seconds one compute op or one collective takes on the configuration's devices (a fitted
/// model's predictions; collectives once every participant has joined).
struct StepCostModel {
  std::function<double(const trace::ComputeOp&)> op_time;
  std::function<double(const trace::Collective&)> collective_time;
};

/// One shard's time on the rank that holds it, by the segment of the step it falls in, s.
struct ShardTime {
  double forward = 0.0;   ///< emb_fwd: embedding-bag forward, packing its send blocks
  double backward = 0.0;  ///< emb_bwd: unpacking, embedding-bag backward (a replica: its dense
                          ///< gradient filled and scattered too)
  double update = 0.0;    ///< optimizer: its sparse update
};

/// The cost of one placement of a table: per part, its holder's time and its columns in the
/// all-to-all; per rank, the copies that gather its pooled values into z and scatter dz back
/// (every rank does them for every model-parallel part, and a replica's holder for its own).
struct PlacementCost {
  std::vector<ShardTime> parts;    ///< [parts]: table_wise 1; row_wise, column_wise and
                                   ///< data_parallel one per rank, part i on rank i
  std::vector<std::int64_t> cols;  ///< [parts]: the part's columns in the all-to-all (0 for a
                                   ///< replica or an empty column block)
  std::vector<double> receivers;   ///< [ranks]: gather + scatter time on each rank, s
};

/// Every placement the search considers for one table on `ranks` ranks.
struct TableCosts {
  PlacementCost table_wise;           ///< the whole table on one rank (the same on any rank)
  PlacementCost row_wise;             ///< rows split over all ranks in rank order
  PlacementCost column_wise;          ///< columns split over all ranks in rank order
  PlacementCost data_parallel;        ///< a replica on every rank, its own samples
  double replica_all_reduce_s = 0.0;  ///< the replicas' bucketed gradient all-reduce, s
};

/// Most threads table_costs uses (it uses the machine's hardware threads up to this).
inline constexpr unsigned kMaxCostWorkers = 8;

/// The costs of every table of `options` for the batch split `per_rank_batch` ([ranks], each
/// >= 1), tables stored as `precision`, the lookups of `seed` (the ones the run draws:
/// table_lookups), gradient buckets of `bucket_bytes`. Each table's lookups are drawn and sorted
/// once; tables are costed on up to kMaxCostWorkers threads, so `model`'s functions must be
/// safe to call concurrently (the result does not depend on the thread count). Throws
/// std::invalid_argument for an empty split or what the model's times throw (a missing op
/// model; the first one met when several are).
std::vector<TableCosts> table_costs(const job::DlrmOptions& options,
                                    const std::vector<int>& per_rank_batch, job::DataType precision,
                                    std::uint64_t seed, double bucket_bytes,
                                    const StepCostModel& model);

}  // namespace scaletune::kernels
