#include "harness/job/detail/sweep_size.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <string>

#include "harness/job/sweep.hpp"

namespace scaletune::job::detail {

namespace {

/// `n`, or 1 for an empty list (a list the kind does not sweep).
double at_least_one(std::size_t n) {
  return static_cast<double>(std::max<std::size_t>(n, 1));
}

/// `x`, a whole count held in a double (it may exceed 64 bits), as text.
std::string count_text(double x) {
  std::array<char, 400> text{};
  std::snprintf(text.data(), text.size(), "%.0f", x);
  return text.data();
}

}  // namespace

SweepSize sweep_size(const SweepSpec& spec) {
  if (spec.batch_split.empty())
    return SweepSize{.configurations = static_cast<double>(spec.ranks.size()), .rank_batches = 0};
  const double inner = at_least_one(spec.global_batch.size()) *
                       at_least_one(spec.precision.size()) * at_least_one(spec.sharding.size()) *
                       at_least_one(spec.state_sharding.size());
  SweepSize size;
  for (const int ranks : spec.ranks) {
    for (std::size_t split = 0; split < spec.batch_split.size(); ++split) {
      if (!split_applies(spec, split, ranks)) continue;
      size.configurations += inner;
      size.rank_batches += inner * ranks;
    }
  }
  return size;
}

void check_sweep_size(const TableReader& sweep, const SweepSpec& spec) {
  const SweepSize size = sweep_size(spec);
  const std::string fix = "; split the sweep over several job files";
  if (size.configurations > static_cast<double>(kMaxConfigurations))
    sweep.fail(*sweep.find("ranks"), "ranks",
               "the sweep expands into " + count_text(size.configurations) +
                   " configurations (the product of its lists); expected at most " +
                   std::to_string(kMaxConfigurations) + fix);
  if (size.rank_batches > static_cast<double>(kMaxRankBatches))
    sweep.fail(*sweep.find("ranks"), "ranks",
               "the sweep's configurations hold " + count_text(size.rank_batches) +
                   " per-rank batches (the sum of their rank counts); expected at most " +
                   std::to_string(kMaxRankBatches) + fix);
}

}  // namespace scaletune::job::detail
