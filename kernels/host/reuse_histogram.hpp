#pragma once
// Reuse histogram of a batch's embedding indices: how often each unique row is read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace scaletune::kernels {

/// Number of reuse bins: (0,1], (1,2], (2,4], ..., (2^14, 2^15], and (2^15, inf).
inline constexpr std::size_t reuse_bin_count = 17;

/// Share of unique indices per reuse bin; the shares sum to 1 (all 0 for an empty input).
using ReuseHistogram = std::array<double, reuse_bin_count>;

/// Bin of an access count >= 1: 0 for count 1, b for 2^(b-1) < count <= 2^b (b = 1..15), and
/// 16 for count > 2^15. Throws std::invalid_argument for count < 1.
std::size_t reuse_bin(std::int64_t count);

/// The distinct indices of a batch and the reuse histogram of their access counts.
struct ReuseProfile {
  std::int64_t distinct = 0;  ///< unique indices
  ReuseHistogram shares{};    ///< reuse_histogram's shares
};

/// Both at once from one sort of a copy of `indices` [nnz]; O(nnz log nnz).
ReuseProfile reuse_profile(std::span<const std::int64_t> indices);

/// The same of indices already sorted ascending (any contiguous range of a sorted batch, such
/// as one row block's); O(nnz).
ReuseProfile reuse_profile_sorted(std::span<const std::int64_t> sorted);

/// The same from access counts per row (`counts[i]` reads of row i; rows read 0 times are not
/// distinct indices); O(rows).
ReuseProfile reuse_profile_counts(std::span<const std::uint32_t> counts);

/// Counts the accesses of each unique index in `indices` [nnz] (any int64 values, any order)
/// and returns the share of unique indices whose count falls in each bin of reuse_bin.
/// An empty input has no unique index: every share is 0. O(nnz log nnz) (sorts a copy).
ReuseHistogram reuse_histogram(std::span<const std::int64_t> indices);

}  // namespace scaletune::kernels
