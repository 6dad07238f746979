#pragma once
// Splitting a global batch over ranks.

#include <string>
#include <string_view>
#include <vector>

namespace scaletune::job {

/// Per-rank batch for an even split: global_batch / ranks each.
/// Throws std::invalid_argument ("7 samples cannot split evenly over 2 ranks") when
/// global_batch is not a multiple of ranks or either is < 1.
std::vector<int> even_split(int global_batch, int ranks);

/// Per-rank batch proportional to `weights` ([ranks], each finite and > 0, their sum finite),
/// rounded by the largest remainder method (Hamilton) so the parts sum to global_batch; every
/// rank gets >= 1 sample. Shares are computed in double as weight / sum, so weights near
/// DBL_MAX cannot overflow. Throws std::invalid_argument when a weight is not finite or <= 0,
/// when the weights sum to infinity, or when global_batch < weights.size().
std::vector<int> weighted_split(int global_batch, const std::vector<double>& weights);

/// Whether `batch_split` is a word of job.hpp's kProfiledSplits ("proportional", "auto"): a
/// split the workload decides at run time from a profile of its ranks.
bool is_profiled_split(std::string_view batch_split);

/// Per-rank batch as printed in plans and progress lines: "8x2" when every rank has 8 samples,
/// "40,20,20" when uneven, "-" when empty.
std::string per_rank_batch_text(const std::vector<int>& per_rank_batch);

}  // namespace scaletune::job
