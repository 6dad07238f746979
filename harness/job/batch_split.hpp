#pragma once
// Splitting a global batch over ranks.

#include <string>
#include <vector>

namespace scaletune::job {

/// Per-rank batch for an even split: global_batch / ranks each.
/// Throws std::invalid_argument ("7 samples cannot split evenly over 2 ranks") when
/// global_batch is not a multiple of ranks or either is < 1.
std::vector<int> even_split(int global_batch, int ranks);

/// Per-rank batch proportional to `weights` ([ranks], each > 0), rounded by the largest
/// remainder method (Hamilton) so the parts sum to global_batch; every rank gets >= 1 sample.
/// Throws std::invalid_argument when a weight is <= 0 or global_batch < weights.size().
std::vector<int> weighted_split(int global_batch, const std::vector<double>& weights);

}  // namespace scaletune::job
