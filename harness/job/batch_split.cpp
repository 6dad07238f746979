#include "batch_split.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "harness/job/job.hpp"

namespace scaletune::job {
namespace {

void check_weights(const std::vector<double>& weights) {
  if (std::ranges::any_of(weights, [](double w) { return !(w > 0.0 && std::isfinite(w)); }))
    throw std::invalid_argument("batch split weights must be finite and > 0");
  if (!std::isfinite(std::accumulate(weights.begin(), weights.end(), 0.0)))
    throw std::invalid_argument(
        "batch split weights sum to infinity; use smaller weights (only their ratios matter)");
}

}  // namespace

std::vector<int> even_split(int global_batch, int ranks) {
  if (ranks < 1 || global_batch < 1)
    throw std::invalid_argument("global batch and ranks must be >= 1");
  if (global_batch % ranks != 0)
    throw std::invalid_argument(std::to_string(global_batch) +
                                " samples cannot split evenly over " + std::to_string(ranks) +
                                " ranks");
  return std::vector<int>(static_cast<std::size_t>(ranks), global_batch / ranks);
}

std::vector<int> weighted_split(int global_batch, const std::vector<double>& weights) {
  const auto n = static_cast<int>(weights.size());
  if (n < 1 || global_batch < n)
    throw std::invalid_argument(std::to_string(global_batch) + " samples cannot give each of " +
                                std::to_string(n) + " ranks at least one");
  check_weights(weights);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  // Every rank first gets one sample; the rest is shared by weight, largest remainder first.
  // Each share weight / total is in (0, 1], so exact <= rest and its floor fits an int.
  const int rest = global_batch - n;
  std::vector<int> parts(weights.size(), 1);
  std::vector<double> remainder(weights.size());
  int given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double exact = rest * (weights[i] / total);
    // Rounding may push the floors' sum past `rest` by one: never give more than is left.
    const int whole = std::min(static_cast<int>(std::floor(exact)), rest - given);
    parts[i] += whole;
    given += whole;
    remainder[i] = exact - whole;
  }
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(
      order, [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (int k = 0; k < rest - given; ++k) ++parts[order[static_cast<std::size_t>(k)]];
  if (std::accumulate(parts.begin(), parts.end(), 0LL) != global_batch)
    throw std::logic_error("weighted_split: parts do not sum to the global batch");
  return parts;
}

bool is_profiled_split(std::string_view batch_split) {
  return std::ranges::find(kProfiledSplits, batch_split) != kProfiledSplits.end();
}

std::string per_rank_batch_text(const std::vector<int>& per_rank_batch) {
  if (per_rank_batch.empty()) return "-";
  if (std::ranges::adjacent_find(per_rank_batch, std::not_equal_to<>()) == per_rank_batch.end())
    return std::to_string(per_rank_batch.front()) + "x" + std::to_string(per_rank_batch.size());
  std::string text;
  for (const int part : per_rank_batch) text += (text.empty() ? "" : ",") + std::to_string(part);
  return text;
}

}  // namespace scaletune::job
