#include "kernels/transformer/state_layout.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace scaletune::kernels {

namespace {

void check_fractions(const std::vector<double>& fractions) {
  if (fractions.empty()) throw std::invalid_argument("shard_layout: no ranks");
  for (const double f : fractions)
    if (!std::isfinite(f) || f < 0.0)
      throw std::invalid_argument("shard_layout: fraction " + std::to_string(f) +
                                  " is not a finite value >= 0");
  const double sum = std::accumulate(fractions.begin(), fractions.end(), 0.0);
  if (std::abs(sum - 1.0) > 1e-6)
    throw std::invalid_argument("shard_layout: fractions sum to " + std::to_string(sum) +
                                ", not 1");
}

}  // namespace

ShardLayout shard_layout(std::size_t total, const std::vector<double>& fractions) {
  check_fractions(fractions);
  const std::size_t n = fractions.size();
  const double sum = std::accumulate(fractions.begin(), fractions.end(), 0.0);
  ShardLayout layout{std::vector<std::size_t>(n, 0), std::vector<std::size_t>(n, 0)};
  std::vector<double> remainder(n, 0.0);
  std::vector<std::size_t> holders;  // ranks with a fraction > 0
  std::size_t assigned = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const double quota = static_cast<double>(total) * (fractions[r] / sum);
    layout.counts[r] = std::min(static_cast<std::size_t>(std::floor(quota)), total - assigned);
    remainder[r] = quota - static_cast<double>(layout.counts[r]);
    assigned += layout.counts[r];
    if (fractions[r] > 0.0) holders.push_back(r);
  }
  std::stable_sort(holders.begin(), holders.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; assigned < total; i = (i + 1) % holders.size(), ++assigned)
    ++layout.counts[holders[i]];
  std::exclusive_scan(layout.counts.begin(), layout.counts.end(), layout.offsets.begin(),
                      std::size_t{0});
  return layout;
}

std::vector<std::size_t> unit_counts(const ShardLayout& layout, std::size_t begin,
                                     std::size_t end) {
  if (begin > end) throw std::invalid_argument("unit_counts: begin is past end");
  std::vector<std::size_t> counts(layout.counts.size(), 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const std::size_t lo = std::max(begin, layout.offsets[r]);
    const std::size_t hi = std::min(end, layout.offsets[r] + layout.counts[r]);
    counts[r] = hi > lo ? hi - lo : 0;
  }
  return counts;
}

std::size_t offset_in_shard(const ShardLayout& layout, int rank, std::size_t begin) {
  const auto r = static_cast<std::size_t>(rank);
  const std::size_t first = layout.offsets[r];
  return begin > first && begin < first + layout.counts[r] ? begin - first : 0;
}

}  // namespace scaletune::kernels
