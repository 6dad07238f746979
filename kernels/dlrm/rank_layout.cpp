#include "kernels/dlrm/rank_layout.hpp"

#include <stdexcept>
#include <string>

namespace scaletune::kernels {
namespace {

std::vector<std::int64_t> batch_starts(const std::vector<int>& per_rank_batch) {
  std::vector<std::int64_t> starts{0};
  for (const int batch : per_rank_batch) starts.push_back(starts.back() + batch);
  return starts;
}

void check_layout_args(const ShardingPlan& plan, const std::vector<int>& per_rank_batch, int rank) {
  const auto ranks = static_cast<int>(per_rank_batch.size());
  if (plan.ranks != ranks || rank < 0 || rank >= ranks)
    throw std::invalid_argument("make_rank_layout: rank " + std::to_string(rank) +
                                " of a plan on " + std::to_string(plan.ranks) +
                                " ranks with a batch split over " + std::to_string(ranks) +
                                " ranks");
}

/// Sum over the model-parallel shards held by `holder` of their columns.
std::size_t model_parallel_cols(const ShardingPlan& plan, int holder) {
  std::size_t cols = 0;
  for (const TableSharding& table : plan.tables) {
    if (table.split == ShardSplit::data_parallel) continue;
    for (const Shard& shard : table.shards)
      if (shard.rank == holder) cols += static_cast<std::size_t>(shard.cols());
  }
  return cols;
}

void fill_exchange_counts(RankLayout& layout) {
  const auto ranks = static_cast<std::size_t>(layout.ranks);
  std::vector<std::size_t> cols(ranks);
  for (std::size_t p = 0; p < ranks; ++p)
    cols[p] = model_parallel_cols(layout.plan, static_cast<int>(p));
  const auto me = static_cast<std::size_t>(layout.rank);
  layout.send_counts.assign(ranks, 0);
  layout.recv_counts.assign(ranks, 0);
  for (std::size_t p = 0; p < ranks; ++p) {
    layout.send_counts[p] = static_cast<std::size_t>(layout.per_rank_batch[p]) * cols[me];
    layout.recv_counts[p] = static_cast<std::size_t>(layout.per_rank_batch[me]) * cols[p];
  }
  // Every rank's count to every peer is batch[q] * cols[p]: equal for all pairs when all
  // batches and all holders' columns are equal.
  const auto equal = [](const auto& values) {
    for (const auto& v : values)
      if (v != values.front()) return false;
    return true;
  };
  layout.uniform_exchange = equal(layout.per_rank_batch) && equal(cols);
}

}  // namespace

RankLayout make_rank_layout(const job::DlrmOptions& options, const ShardingPlan& plan,
                            const std::vector<int>& per_rank_batch, int rank, std::uint64_t seed) {
  check_layout_args(plan, per_rank_batch, rank);
  RankLayout layout;
  layout.rank = rank;
  layout.ranks = plan.ranks;
  layout.per_rank_batch = per_rank_batch;
  layout.batch_start = batch_starts(per_rank_batch);
  layout.plan = plan;
  const auto me = static_cast<std::size_t>(rank);
  for (std::size_t t = 0; t < plan.tables.size(); ++t) {
    const TableSharding& table = plan.tables[t];
    for (const Shard& shard : table.shards) {
      if (shard.rank != rank) continue;
      const LookupBatch lookups = table_lookups(options, t, layout.global_batch(), seed);
      LocalShard local{.table = t,
                       .shard = shard,
                       .replica = table.split == ShardSplit::data_parallel,
                       .bags = {},
                       .stats = {}};
      local.bags = local.replica ? slice_bags(lookups, layout.batch_start[me],
                                              layout.batch_start[me + 1], 0, shard.row_end)
                                 : slice_bags(lookups, 0, layout.global_batch(), shard.row_begin,
                                              shard.row_end);
      local.stats = slice_stats(local.bags);
      layout.shards.push_back(std::move(local));
    }
  }
  fill_exchange_counts(layout);
  return layout;
}

}  // namespace scaletune::kernels
