// Per-table placement costs of the DLRM embedding layer, from a performance model.

#include "kernels/dlrm/shard_costs.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/core/gradient_reducer.hpp"
#include "harness/core/parallel_each.hpp"
#include "kernels/describe/op_costs.hpp"
#include "kernels/dlrm/dlrm_inputs.hpp"
#include "kernels/dlrm/sharded_embeddings.hpp"
#include "kernels/dlrm/sharding_plan.hpp"
#include "kernels/host/reuse_histogram.hpp"

namespace scaletune::kernels {
namespace {

using core::DType;

/// What one shard's embedding bag sees of the step's lookups.
struct BagLookups {
  std::int64_t bags = 0;     ///< bags pooled: the global batch, or a replica's own samples
  std::int64_t lookups = 0;  ///< index positions
  ReuseProfile profile;      ///< distinct rows and reuse histogram
};

/// The configuration every table is costed in, and the copy times it has computed (they
/// depend on the columns only, and recur in every table).
struct Setting {
  const job::DlrmOptions& options;
  const std::vector<int>& batch;  ///< [ranks]
  DType table_type;
  double bucket_bytes;
  const StepCostModel& model;
  mutable std::map<std::int64_t, double> exchange_memo;  ///< by cols
  mutable std::map<std::pair<std::int64_t, bool>, std::vector<double>> receiver_memo;

  std::size_t ranks() const { return batch.size(); }
  std::int64_t global_batch() const {
    std::int64_t total = 0;
    for (const int b : batch) total += b;
    return total;
  }
  double op(const trace::ComputeOp& op) const { return model.op_time(op); }
  const char* optimizer() const {
    return options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad
               ? "sparse_rowwise_adagrad"
               : "sparse_sgd";
  }
};

/// Packing (or unpacking) a model-parallel shard's blocks of `cols` columns for every peer.
double exchange_copies(const Setting& s, std::int64_t cols) {
  if (const auto it = s.exchange_memo.find(cols); it != s.exchange_memo.end()) return it->second;
  double t = 0.0;
  for (const int b : s.batch) t += s.op(describe::copy_op(b * cols, DType::fp32, DType::fp32));
  return s.exchange_memo[cols] = t;
}

/// A model-parallel shard of `rows` x `cols` serving `l`.
ShardTime model_parallel_part(const Setting& s, std::int64_t rows, std::int64_t cols,
                              const BagLookups& l) {
  const std::span<const double> reuse(l.profile.shares);
  const double copies = exchange_copies(s, cols);
  return {.forward = s.op(describe::embedding_forward_op(l.bags, rows, cols, l.lookups,
                                                         s.table_type, reuse)) +
                     copies,
          .backward = copies + s.op(describe::embedding_backward_op(l.bags, rows, cols, l.lookups,
                                                                    l.profile.distinct, reuse)),
          .update = s.op(describe::sparse_update_op(s.optimizer(), l.profile.distinct, rows, cols,
                                                    s.table_type))};
}

/// Each rank's gather (accumulating for model-parallel blocks) and scatter of `cols` columns.
const std::vector<double>& receiver_copies(const Setting& s, std::int64_t cols, bool accumulate) {
  const auto key = std::make_pair(cols, accumulate);
  if (const auto it = s.receiver_memo.find(key); it != s.receiver_memo.end()) return it->second;
  std::vector<double> t;
  for (const int b : s.batch)
    t.push_back(s.op(describe::copy_columns_op(b, cols, DType::fp32, accumulate)) +
                s.op(describe::copy_columns_op(b, cols, DType::fp32, false)));
  return s.receiver_memo[key] = std::move(t);
}

void add_to(std::vector<double>& total, const std::vector<double>& more) {
  if (total.empty()) total.assign(more.size(), 0.0);
  for (std::size_t r = 0; r < more.size(); ++r) total[r] += more[r];
}

/// The global batch's indices of a table sorted within each rank's samples: `chunked` holds
/// rank r's bags' indices sorted in [ends[r - 1], ends[r]).
struct ChunkedIndices {
  std::vector<std::int64_t> values;
  std::vector<std::size_t> ends;  ///< [ranks]
};

ChunkedIndices sort_by_rank(const Setting& s, const LookupBatch& lookups) {
  ChunkedIndices c{lookups.indices, {}};
  std::size_t first_bag = 0;
  for (const int b : s.batch) {
    const auto begin = static_cast<long>(lookups.offsets[first_bag]);
    first_bag += static_cast<std::size_t>(b);
    const auto end = static_cast<long>(lookups.offsets[first_bag]);
    std::sort(c.values.begin() + begin, c.values.begin() + end);
    c.ends.push_back(static_cast<std::size_t>(end));
  }
  return c;
}

/// Reuse profiles of row blocks of one table's global-batch indices: from access counts per
/// row when the table has at most kCountedRowsPerLookup rows per lookup, else from the indices
/// merged into one sorted sequence.
class RowBlocks {
 public:
  static constexpr std::int64_t kCountedRowsPerLookup = 4;

  RowBlocks(ChunkedIndices chunks, std::int64_t rows, std::int64_t bags) : m_bags(bags) {
    if (rows <= kCountedRowsPerLookup * static_cast<std::int64_t>(chunks.values.size()) + 1024) {
      m_counts.assign(static_cast<std::size_t>(rows), 0);
      for (const std::int64_t i : chunks.values) ++m_counts[static_cast<std::size_t>(i)];
    } else {
      m_sorted = merged(std::move(chunks));
    }
  }

  /// The lookups of rows [begin, end).
  BagLookups block(std::int64_t begin, std::int64_t end) const {
    if (m_sorted.empty() && !m_counts.empty()) {
      const std::span<const std::uint32_t> counts(m_counts.data() + begin,
                                                  static_cast<std::size_t>(end - begin));
      std::int64_t lookups = 0;
      for (const std::uint32_t c : counts) lookups += c;
      return {m_bags, lookups, reuse_profile_counts(counts)};
    }
    const auto first = std::lower_bound(m_sorted.begin(), m_sorted.end(), begin);
    const auto last = std::lower_bound(first, m_sorted.end(), end);
    const std::span<const std::int64_t> indices(m_sorted.data() + (first - m_sorted.begin()),
                                                static_cast<std::size_t>(last - first));
    return {m_bags, static_cast<std::int64_t>(indices.size()), reuse_profile_sorted(indices)};
  }

 private:
  /// The chunks merged pairwise, log2(ranks) linear passes between two buffers.
  static std::vector<std::int64_t> merged(ChunkedIndices c) {
    std::vector<std::int64_t> other(c.values.size());
    std::vector<std::size_t> ends = std::move(c.ends);
    const auto at = [](std::vector<std::int64_t>& v, std::size_t k) {
      return v.begin() + static_cast<long>(k);
    };
    while (ends.size() > 1) {
      std::vector<std::size_t> next;
      for (std::size_t i = 0; i < ends.size(); i += 2) {
        const std::size_t begin = i == 0 ? 0 : ends[i - 1];
        const std::size_t middle = ends[i];
        const std::size_t end = i + 1 < ends.size() ? ends[i + 1] : middle;
        std::merge(at(c.values, begin), at(c.values, middle), at(c.values, middle),
                   at(c.values, end), at(other, begin));
        next.push_back(end);
      }
      std::swap(c.values, other);
      ends = std::move(next);
    }
    return std::move(c.values);
  }

  std::int64_t m_bags;
  std::vector<std::uint32_t> m_counts;  ///< [rows], or empty
  std::vector<std::int64_t> m_sorted;   ///< every index, ascending, or empty
};

/// Rows split as the built-in row_wise plan splits them (part i on rank i).
PlacementCost row_wise(const Setting& s, const TableSharding& plan, const RowBlocks& blocks) {
  PlacementCost cost;
  for (const Shard& shard : plan.shards) {
    const BagLookups l = blocks.block(shard.row_begin, shard.row_end);
    cost.parts.push_back(model_parallel_part(s, shard.rows(), shard.cols(), l));
    cost.cols.push_back(shard.cols());
    add_to(cost.receivers, receiver_copies(s, shard.cols(), true));
  }
  return cost;
}

/// Columns split as the built-in column_wise plan splits them; a rank with an empty block
/// holds a part of no cost and no columns.
PlacementCost column_wise(const Setting& s, const TableSharding& plan, const BagLookups& whole) {
  PlacementCost cost{std::vector<ShardTime>(s.ranks()), std::vector<std::int64_t>(s.ranks(), 0),
                     std::vector<double>(s.ranks(), 0.0)};
  for (const Shard& shard : plan.shards) {
    const auto r = static_cast<std::size_t>(shard.rank);
    cost.parts[r] = model_parallel_part(s, shard.rows(), shard.cols(), whole);
    cost.cols[r] = shard.cols();
    add_to(cost.receivers, receiver_copies(s, shard.cols(), true));
  }
  return cost;
}

/// A replica on every rank, pooling its own samples' bags (their indices `chunks`).
PlacementCost data_parallel(const Setting& s, const job::EmbeddingTableSpec& table,
                            const ChunkedIndices& chunks) {
  PlacementCost cost;
  for (std::size_t r = 0; r < s.ranks(); ++r) {
    const std::size_t begin = r == 0 ? 0 : chunks.ends[r - 1];
    const std::span<const std::int64_t> own(chunks.values.data() + begin, chunks.ends[r] - begin);
    const std::int64_t b = s.batch[r];
    const BagLookups l{b, static_cast<std::int64_t>(own.size()), reuse_profile_sorted(own)};
    const std::span<const double> reuse(l.profile.shares);
    const std::int64_t cells = table.rows * table.dim;
    cost.parts.push_back(
        {.forward = s.op(describe::embedding_forward_op(b, table.rows, table.dim, l.lookups,
                                                        s.table_type, reuse)),
         .backward = s.op(describe::embedding_backward_op(b, table.rows, table.dim, l.lookups,
                                                          l.profile.distinct, reuse)) +
                     s.op(describe::elementwise_kind_op("fill", cells, DType::fp32)) +
                     s.op(describe::sparse_update_op("sparse_sgd", l.profile.distinct, table.rows,
                                                     table.dim, DType::fp32)),
         .update = s.op(describe::sparse_update_op(s.optimizer(), table.rows, table.rows, table.dim,
                                                   s.table_type))});
    cost.cols.push_back(0);
  }
  cost.receivers = receiver_copies(s, table.dim, false);
  return cost;
}

/// The bucketed all-reduce of one replica's dense gradient (rows x dim floats).
double replica_all_reduce(const Setting& s, const job::EmbeddingTableSpec& table) {
  if (s.ranks() < 2 || s.bucket_bytes < sizeof(float)) return 0.0;
  const auto count = static_cast<std::size_t>(table.rows * table.dim);
  const auto per = static_cast<std::size_t>(s.bucket_bytes / sizeof(float));
  const auto time = [&](std::size_t n) {
    trace::Collective c;
    c.op = "all_reduce";
    c.dtype = "fp32";
    c.count = static_cast<std::int64_t>(n);
    c.bytes = static_cast<std::int64_t>(n * sizeof(float));
    c.participants = static_cast<int>(s.ranks());
    return s.model.collective_time(c);
  };
  // GradientReducer's buckets: `per` floats each from the gradient's end, the first partial.
  const std::size_t buckets = core::bucket_count(count, s.bucket_bytes);
  return static_cast<double>(buckets - 1) * time(per) + time(count - (buckets - 1) * per);
}

TableCosts costs_of(const Setting& s, std::size_t t, const LookupBatch& lookups,
                    const ShardingPlan& rows, const ShardingPlan& columns) {
  const job::EmbeddingTableSpec& table = s.options.tables[t];
  TableCosts costs;
  ChunkedIndices chunks = sort_by_rank(s, lookups);
  costs.data_parallel = data_parallel(s, table, chunks);
  const RowBlocks blocks(std::move(chunks), table.rows, s.global_batch());
  const BagLookups whole = blocks.block(0, table.rows);
  costs.table_wise = {{model_parallel_part(s, table.rows, table.dim, whole)},
                      {table.dim},
                      receiver_copies(s, table.dim, true)};
  costs.row_wise = row_wise(s, rows.tables[t], blocks);
  costs.column_wise = column_wise(s, columns.tables[t], whole);
  costs.replica_all_reduce_s = replica_all_reduce(s, table);
  return costs;
}

}  // namespace

std::vector<TableCosts> table_costs(const job::DlrmOptions& options,
                                    const std::vector<int>& per_rank_batch, job::DataType precision,
                                    std::uint64_t seed, double bucket_bytes,
                                    const StepCostModel& model) {
  if (per_rank_batch.empty()) throw std::invalid_argument("table_costs: an empty batch split");
  const auto ranks = static_cast<int>(per_rank_batch.size());
  const ShardingPlan rows =
      make_sharding_plan({job::ShardingScheme::row_wise, "", nullptr}, options, ranks);
  const ShardingPlan columns =
      make_sharding_plan({job::ShardingScheme::column_wise, "", nullptr}, options, ranks);
  const DType table_type = table_dtype(precision);
  std::vector<TableCosts> costs(options.tables.size());
  // Tables are independent: each thread costs the next one, with copy times of its own.
  const std::vector<Setting> settings(
      core::parallel_workers(costs.size(), kMaxCostWorkers),
      Setting{options, per_rank_batch, table_type, bucket_bytes, model, {}, {}});
  core::parallel_each(costs.size(), kMaxCostWorkers, [&](std::size_t t, unsigned worker) {
    const Setting& s = settings[worker];
    costs[t] = costs_of(s, t, table_lookups(options, t, s.global_batch(), seed), rows, columns);
  });
  return costs;
}

}  // namespace scaletune::kernels
