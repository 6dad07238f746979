#pragma once
// Where each rank's shard of a flat training-state vector lies (ZeRO, Rajbhandari et al. 2020,
// "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"): rank r owns the
// contiguous elements [offset r, offset r + count r), in rank order, sized by shard fractions that
// may be uneven. A model's parameters come in units (GptModel::unit_parameter_counts) that are
// gathered and reduced one at a time; unit_counts gives each rank's part of a unit, the per-rank
// counts of all-gatherv and reduce-scatterv.

#include <cstddef>
#include <vector>

namespace scaletune::kernels {

/// Shards of a flat vector: offsets [ranks] (ascending, offsets[0] = 0) and counts [ranks],
/// summing to the vector's length.
struct ShardLayout {
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> counts;
};

/// Shards of `total` elements by `fractions` ([ranks], each finite and >= 0, summing to 1 within
/// 1e-6): floors of total * fraction_r, the remaining elements one each to the largest
/// fractional parts (ties to the lower rank); a rank with fraction 0 gets nothing. Throws
/// std::invalid_argument on no ranks, a negative or non-finite fraction, or a sum off 1.
ShardLayout shard_layout(std::size_t total, const std::vector<double>& fractions);

/// Per-rank counts [ranks] of the elements of [begin, end) that each rank's shard holds (the
/// intersection of the two ranges); they sum to end - begin when the layout covers the range.
/// Throws std::invalid_argument when begin > end.
std::vector<std::size_t> unit_counts(const ShardLayout& layout, std::size_t begin, std::size_t end);

/// Offset, within rank `rank`'s shard, of its first element of [begin, end); 0 when it holds
/// none of them.
std::size_t offset_in_shard(const ShardLayout& layout, int rank, std::size_t begin);

}  // namespace scaletune::kernels
