#pragma once
// The message sizes of a collectives benchmark (job.hpp CollectivesOptions), stepped the way
// nccl-tests steps its -b (min), -e (max) and -f (factor) options.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job {

/// Largest min_bytes and max_bytes, bytes (2^40 = 1 TiB).
inline constexpr std::int64_t kMaxCollectiveBytes = std::int64_t{1} << 40;
/// Largest step_factor.
inline constexpr double kMaxStepFactor = 1024.0;
/// Most sizes one op may take. More means a step_factor too close to 1 for the range: 1.001
/// from 1 B to 1 TiB would give 22,405 sizes (doubling needs at most 41).
inline constexpr std::size_t kMaxCollectiveSizes = 1024;

/// The size after `size_bytes`: floor(size_bytes * step_factor), as nccl-tests computes
/// `size = size * stepfactor` (integer size times the factor, truncated). Two corrections for
/// factors that are not whole numbers: a product within 4 ulp of an integer counts as that
/// integer, so the binary rounding of a factor such as 1.15 drops no size (100 x 1.15 gives 115,
/// not 114.99999999999999 truncated to 114); and the result is at least size_bytes + 1, so a
/// factor near 1 still makes progress (8 x 1.1 gives 9, not 8). Sizes in bytes.
/// Throws std::invalid_argument when size_bytes is outside [1, kMaxCollectiveBytes] or
/// step_factor outside (1, kMaxStepFactor] (NaN included).
std::int64_t next_collective_size(std::int64_t size_bytes, double step_factor);

/// The sizes, bytes, each op of a collectives job is timed at: min_bytes, then
/// next_collective_size of the previous one while <= max_bytes, so max_bytes is the last size
/// when a step hits it exactly (nccl-tests' loop: -b 8 -e 128M -f 2 gives the 25 sizes
/// 8, 16, ..., 2^27). These are nccl-tests' total buffer sizes before the benchmark rounds them
/// to whole elements of the dtype.
/// Throws std::invalid_argument when min_bytes is outside [1, kMaxCollectiveBytes], max_bytes
/// outside [min_bytes, kMaxCollectiveBytes] or step_factor outside (1, kMaxStepFactor], and
/// std::length_error when there would be more than kMaxCollectiveSizes sizes (found while
/// stepping, so it returns quickly whatever the factor).
std::vector<std::int64_t> collective_sizes(const CollectivesOptions& options);

}  // namespace scaletune::job
