#include "kernels/dlrm/dlrm_inputs.hpp"
#include "kernels/host/detail/splitmix64.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::kernels {
namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  return detail::splitmix64(a ^ detail::splitmix64(b));
}

}  // namespace

std::uint64_t table_lookup_seed(std::uint64_t seed, std::size_t table) {
  return mix(seed, 0x7461626cULL + table);
}

LookupBatch table_lookups(const job::DlrmOptions& options, std::size_t table,
                          std::int64_t global_batch, std::uint64_t seed) {
  const job::EmbeddingTableSpec& spec = options.tables.at(table);
  LookupBatchSpec lookup;
  lookup.batch = global_batch;
  lookup.pooling = spec.pooling;
  lookup.bag_law = options.bag_size;
  lookup.distribution = options.index_distribution;
  lookup.rows = spec.rows;
  lookup.seed = table_lookup_seed(seed, table);
  return generate_lookup_batch(lookup);
}

BagSlice slice_bags(const LookupBatch& batch, std::int64_t bag_begin, std::int64_t bag_end,
                    std::int64_t row_begin, std::int64_t row_end) {
  const auto bags = static_cast<std::int64_t>(batch.offsets.size()) - 1;
  if (bag_begin < 0 || bag_begin > bag_end || bag_end > bags || row_begin > row_end)
    throw std::invalid_argument("slice_bags: bags [" + std::to_string(bag_begin) + ", " +
                                std::to_string(bag_end) + ") of " + std::to_string(bags) +
                                ", rows [" + std::to_string(row_begin) + ", " +
                                std::to_string(row_end) + ")");
  std::int64_t kept = 0;
  for (auto k = batch.offsets[bag_begin]; k < batch.offsets[bag_end]; ++k)
    kept += batch.indices[k] >= row_begin && batch.indices[k] < row_end;
  BagSlice slice{IndexVector("bag_slice_offsets", bag_end - bag_begin + 1),
                 IndexVector("bag_slice_indices", kept)};
  std::int64_t next = 0;
  for (std::int64_t b = bag_begin; b < bag_end; ++b) {
    slice.offsets(b - bag_begin) = next;
    for (auto k = batch.offsets[b]; k < batch.offsets[b + 1]; ++k) {
      const std::int64_t row = batch.indices[k];
      if (row >= row_begin && row < row_end) slice.indices(next++) = row - row_begin;
    }
  }
  slice.offsets(bag_end - bag_begin) = next;
  return slice;
}

SliceStats slice_stats(const BagSlice& slice) {
  const std::span<const std::int64_t> indices(slice.indices.data(), slice.indices.extent(0));
  SliceStats stats;
  stats.lookups = static_cast<std::int64_t>(indices.size());
  const ReuseProfile profile = reuse_profile(indices);
  stats.reuse = profile.shares;
  stats.unique_rows = profile.distinct;
  return stats;
}

void fill_dense_batch(std::uint64_t seed, std::int64_t first_sample, const Tensor2& features,
                      const Vector& labels) {
  if (labels.extent(0) != features.extent(0))
    throw std::invalid_argument("fill_dense_batch: labels has " + std::to_string(labels.extent(0)) +
                                " entries for " + std::to_string(features.extent(0)) + " samples");
  for (std::size_t n = 0; n < features.extent(0); ++n) {
    std::mt19937_64 rng(seed * 1000003u +
                        static_cast<std::uint64_t>(first_sample + static_cast<std::int64_t>(n)));
    labels(n) = static_cast<float>(std::bernoulli_distribution(0.5)(rng));
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    for (std::size_t f = 0; f < features.extent(1); ++f) features(n, f) = value(rng);
  }
}

float embedding_initial_value(std::uint64_t seed, std::size_t table, std::int64_t row, int col,
                              std::int64_t rows) {
  const std::uint64_t key =
      mix(mix(seed, table), mix(static_cast<std::uint64_t>(row), static_cast<std::uint64_t>(col)));
  const double unit = static_cast<double>(detail::splitmix64(key) >> 11) * 0x1.0p-53;  // [0, 1)
  const double bound = std::sqrt(1.0 / static_cast<double>(rows));
  return static_cast<float>((2.0 * unit - 1.0) * bound);
}

}  // namespace scaletune::kernels
