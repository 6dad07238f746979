#include "kernels/host/reuse_histogram.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::kernels {

std::size_t reuse_bin(std::int64_t count) {
  if (count < 1) {
    throw std::invalid_argument("reuse_bin: access count " + std::to_string(count) +
                                ", expected at least 1");
  }
  std::size_t bin = 0;
  while (bin + 1 < reuse_bin_count && count > (std::int64_t{1} << bin)) ++bin;
  return bin;
}

ReuseProfile reuse_profile_sorted(std::span<const std::int64_t> sorted) {
  ReuseProfile profile;
  for (std::size_t run = 0; run < sorted.size(); ++profile.distinct) {
    std::size_t run_end = run + 1;
    while (run_end < sorted.size() && sorted[run_end] == sorted[run]) ++run_end;
    profile.shares[reuse_bin(static_cast<std::int64_t>(run_end - run))] += 1.0;
    run = run_end;
  }
  if (profile.distinct == 0) return profile;
  for (double& share : profile.shares) share /= static_cast<double>(profile.distinct);
  return profile;
}

ReuseProfile reuse_profile_counts(std::span<const std::uint32_t> counts) {
  ReuseProfile profile;
  for (const std::uint32_t count : counts) {
    if (count == 0) continue;
    ++profile.distinct;
    profile.shares[reuse_bin(count)] += 1.0;
  }
  if (profile.distinct == 0) return profile;
  for (double& share : profile.shares) share /= static_cast<double>(profile.distinct);
  return profile;
}

ReuseProfile reuse_profile(std::span<const std::int64_t> indices) {
  std::vector<std::int64_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  return reuse_profile_sorted(sorted);
}

ReuseHistogram reuse_histogram(std::span<const std::int64_t> indices) {
  return reuse_profile(indices).shares;
}

}  // namespace scaletune::kernels
