#pragma once
// The synthetic batch of the DLRM workload: dense features, click labels and each table's
// lookups, all functions of the seed and the global sample index, so a sample is the same
// however the batch is split and the tables are sharded.

#include <cstddef>
#include <cstdint>

#include "harness/job/job.hpp"
#include "kernels/host/lookup_inputs.hpp"
#include "kernels/host/reuse_histogram.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// The seed of table t's lookup batch: a SplitMix64 mix of (seed, t), so tables draw
/// independent streams.
std::uint64_t table_lookup_seed(std::uint64_t seed, std::size_t table);

/// Lookups of table `table` for the whole global batch (`global_batch` bags): options' pooling,
/// bag_size law and index_distribution, seeded with table_lookup_seed(seed, table). Throws
/// std::invalid_argument for bad options (generate_lookup_batch).
LookupBatch table_lookups(const job::DlrmOptions& options, std::size_t table,
                          std::int64_t global_batch, std::uint64_t seed);

/// Bags [bag_begin, bag_end) of `batch`, keeping only indices in rows [row_begin, row_end),
/// made local (index - row_begin), in CSR form (offsets [bags + 1], indices [kept]).
struct BagSlice {
  IndexVector offsets;
  IndexVector indices;
};

/// Builds a BagSlice of `batch` (0 <= bag_begin <= bag_end <= bags, row_begin <= row_end).
BagSlice slice_bags(const LookupBatch& batch, std::int64_t bag_begin, std::int64_t bag_end,
                    std::int64_t row_begin, std::int64_t row_end);

/// What one rank's piece of a table serves per step: lookups (index positions), distinct rows,
/// and the reuse histogram of its indices.
struct SliceStats {
  std::int64_t lookups = 0;
  std::int64_t unique_rows = 0;
  ReuseHistogram reuse{};
};

/// Statistics of a BagSlice's indices.
SliceStats slice_stats(const BagSlice& slice);

/// Fills features [N, dense_features] and labels [N] with global samples first_sample ..
/// first_sample + N - 1. Sample i draws from std::mt19937_64 seeded with seed * 1000003 + i:
/// first its label (0 or 1, each with probability 1/2), then its features uniform in [0, 1),
/// as dlrm_s_pytorch's random data generator draws them. Throws std::invalid_argument when
/// labels' length differs from features' rows.
void fill_dense_batch(std::uint64_t seed, std::int64_t first_sample, const Tensor2& features,
                      const Vector& labels);

/// Initial value of table `table`'s element (row, col) for a table of `rows` rows: uniform in
/// [-sqrt(1/rows), sqrt(1/rows)) as dlrm_s_pytorch's create_emb, drawn from a counter-based
/// SplitMix64 hash of (seed, table, row, col), so every shard of a table holds the same values
/// as the whole table.
float embedding_initial_value(std::uint64_t seed, std::size_t table, std::int64_t row, int col,
                              std::int64_t rows);

}  // namespace scaletune::kernels
