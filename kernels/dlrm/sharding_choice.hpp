#pragma once
// Which candidate plan of `sharding = "auto"` runs. The search's plan is the best of many
// per-table placements by the model, so its predicted lead over the built-in sharders is
// inflated by the model's own errors (the optimizer's curse: Smith and Winkler, "The
// Optimizer's Curse: Skepticism and Postdecision Surprise in Decision Analysis", Management
// Science 52(3), 2006). It runs only when it leads the fastest built-in scheme by a margin.

#include <cstddef>
#include <span>

#include "harness/job/job.hpp"

namespace scaletune::kernels {

/// How much faster than the fastest built-in scheme the search's plan must be predicted, as a
/// fraction of the built-in's time, to run instead. On 12 random 2-rank DLRM tasks of the
/// sharding benchmark (scripts/sharding-check.py, host model) the searched plan, predicted
/// 2-12% ahead of every built-in, measured slower than the fastest of them in 8.
inline constexpr double kSearchMargin = 0.10;

/// The index of the candidate that runs among `candidates`, fastest first: by composed step
/// (step_s) where composed > 0 (the first `composed` were composed and fit), else by estimate
/// (embedding_s). The first, unless it is the search's ("search") and a built-in one in the same
/// ordering is predicted less than kSearchMargin slower: then the fastest such built-in. Throws
/// std::invalid_argument for no candidates or composed > candidates.size().
std::size_t chosen_candidate(std::span<const job::ShardingCandidate> candidates,
                             std::size_t composed);

}  // namespace scaletune::kernels
