#include "autotune/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace scaletune::autotune {

namespace {

void check_inputs(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("pareto_front: a has " + std::to_string(a.size()) +
                                " values and b has " + std::to_string(b.size()) +
                                ", expected one b per a");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
      throw std::invalid_argument("pareto_front: point " + std::to_string(i) + " is (" +
                                  std::to_string(a[i]) + ", " + std::to_string(b[i]) +
                                  "), expected finite values");
}

}  // namespace

std::vector<std::size_t> pareto_front(const std::vector<double>& a, const std::vector<double>& b) {
  check_inputs(a, b);
  std::vector<std::size_t> order(a.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
    if (a[p] != a[q]) return a[p] < a[q];
    if (b[p] != b[q]) return b[p] < b[q];
    return p < q;
  });
  // Sweep by increasing a: a point is on the front when its b beats every earlier b, or when it
  // duplicates the front point just kept (duplicates are adjacent after the sort).
  std::vector<std::size_t> front;
  double min_b = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    const bool duplicate = !front.empty() && a[i] == a[front.back()] && b[i] == b[front.back()];
    if (b[i] < min_b || duplicate) {
      front.push_back(i);
      min_b = std::min(min_b, b[i]);
    }
  }
  return front;
}

}  // namespace scaletune::autotune
