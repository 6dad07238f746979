#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace scaletune::core {

double quantile(std::span<const double> x, double q) {
  if (x.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile q must be in [0, 1]");
  std::vector<double> s(x.begin(), x.end());
  std::ranges::sort(s);
  const double h = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

double median(std::span<const double> x) {
  return quantile(x, 0.5);
}

}  // namespace scaletune::core
