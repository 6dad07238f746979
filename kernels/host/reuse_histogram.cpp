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

ReuseHistogram reuse_histogram(std::span<const std::int64_t> indices) {
  ReuseHistogram shares{};
  std::vector<std::int64_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t unique = 0;
  for (auto run = sorted.begin(); run != sorted.end(); ++unique) {
    const auto run_end = std::upper_bound(run, sorted.end(), *run);
    shares[reuse_bin(run_end - run)] += 1.0;
    run = run_end;
  }
  if (unique == 0) return shares;
  for (double& share : shares) share /= static_cast<double>(unique);
  return shares;
}

}  // namespace scaletune::kernels
