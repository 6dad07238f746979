#pragma once
// One rank's view of a sharded DLRM configuration: which shards it holds, which samples it
// trains on, its lookups per shard, and how many values it exchanges with each peer in the
// pooled-embedding all-to-all. Everything here is small (indices, counts); the tables and
// buffers are allocated later, after the memory check.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/job/job.hpp"
#include "kernels/dlrm/dlrm_inputs.hpp"
#include "kernels/dlrm/sharding_plan.hpp"

namespace scaletune::kernels {

/// A shard this rank holds, with its lookups.
struct LocalShard {
  std::size_t table = 0;  ///< index into options.tables
  Shard shard;            ///< rows and columns it holds (the whole table for data_parallel)
  bool replica = false;   ///< data_parallel: a replica serving this rank's own samples only
  /// Model-parallel shards: every sample of the global batch, indices local to the shard's rows;
  /// replicas: this rank's own samples, all rows.
  BagSlice bags;
  SliceStats stats;  ///< of `bags`
};

/// One rank's layout. Model-parallel shards (not replicas) are ordered by table, then by their
/// order in the plan; the all-to-all blocks follow that order on every rank.
struct RankLayout {
  int rank = 0;
  int ranks = 1;
  std::vector<int> per_rank_batch;        ///< [ranks], samples
  std::vector<std::int64_t> batch_start;  ///< [ranks + 1], first global sample of each rank
  ShardingPlan plan;
  std::vector<LocalShard> shards;  ///< what this rank holds, in table order
  /// Values (floats) this rank sends to / receives from each peer in the forward all-to-all
  /// ([ranks] each): to peer q, [per_rank_batch[q], cols] of every model-parallel shard this
  /// rank holds; from peer p, [per_rank_batch[rank], cols] of every model-parallel shard p
  /// holds. The backward all-to-all swaps them.
  std::vector<std::size_t> send_counts;
  std::vector<std::size_t> recv_counts;
  /// True when every rank's counts to every peer are equal (a plain all-to-all serves).
  bool uniform_exchange = true;

  int local_batch() const { return per_rank_batch[static_cast<std::size_t>(rank)]; }
  std::int64_t global_batch() const { return batch_start.back(); }
};

/// Builds rank `rank`'s layout of `plan` for options' tables and the batch split
/// per_rank_batch (each >= 1), generating every table's lookups for the global batch from
/// `seed` (table_lookups). Throws std::invalid_argument when plan.ranks differs from
/// per_rank_batch's size or rank is out of range.
RankLayout make_rank_layout(const job::DlrmOptions& options, const ShardingPlan& plan,
                            const std::vector<int>& per_rank_batch, int rank, std::uint64_t seed);

}  // namespace scaletune::kernels
