// Pareto front of two minimised costs: against a naive O(n^2) dominance check on random points,
// and hand cases (ties, duplicates, one point, bad input).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "autotune/pareto.hpp"

namespace at = scaletune::autotune;
using Indices = std::vector<std::size_t>;

namespace {

// Every point no other point dominates (p dominates q: a_p <= a_q, b_p <= b_q, one strict),
// in index order.
Indices naive_front(const std::vector<double>& a, const std::vector<double>& b) {
  Indices front;
  for (std::size_t q = 0; q < a.size(); ++q) {
    bool dominated = false;
    for (std::size_t p = 0; p < a.size(); ++p)
      dominated = dominated || (a[p] <= a[q] && b[p] <= b[q] && (a[p] < a[q] || b[p] < b[q]));
    if (!dominated) front.push_back(q);
  }
  return front;
}

}  // namespace

TEST(ParetoFront, MatchesNaiveDominanceOnRandomPoints) {
  std::mt19937 gen(6);
  std::uniform_int_distribution<int> coarse(0, 9);  // small grid: many ties and duplicates
  std::uniform_real_distribution<double> fine(0.0, 100.0);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 40);
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = trial % 2 ? coarse(gen) : fine(gen);
      b[i] = trial % 2 ? coarse(gen) : fine(gen);
    }
    const Indices got = at::pareto_front(a, b);
    for (std::size_t k = 1; k < got.size(); ++k) EXPECT_LE(a[got[k - 1]], a[got[k]]);
    Indices sorted = got;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, naive_front(a, b)) << "trial " << trial;
  }
}

TEST(ParetoFront, HandCases) {
  EXPECT_EQ(at::pareto_front({}, {}), Indices{});
  EXPECT_EQ(at::pareto_front({7.0}, {3.0}), Indices{0});
  // Staircase sorted by a, with (5, 5) dominated by (4, 2).
  EXPECT_EQ(at::pareto_front({3, 1, 5, 4}, {4, 9, 5, 2}), (Indices{1, 0, 3}));
  // Equal a: only the smaller b survives; equal b: only the smaller a survives.
  EXPECT_EQ(at::pareto_front({2, 2}, {5, 3}), Indices{1});
  EXPECT_EQ(at::pareto_front({6, 4}, {1, 1}), Indices{1});
  // Exact duplicates on the front are all kept; duplicates off the front are not.
  EXPECT_EQ(at::pareto_front({1, 3, 1, 3, 2}, {4, 3, 4, 3, 1}), (Indices{0, 2, 4}));
}

TEST(ParetoFront, RejectsBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(at::pareto_front({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(at::pareto_front({1, nan}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(at::pareto_front({1, 2}, {std::numeric_limits<double>::infinity(), 2}),
               std::invalid_argument);
}
