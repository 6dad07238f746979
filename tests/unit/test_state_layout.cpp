// ZeRO shard layouts: shard_layout against its definition (floors of total * fraction, the rest
// by largest remainder) on hand cases and random fractions; unit_counts and offset_in_shard
// against a naive per-element scan of random layouts and ranges.

#include "kernels/transformer/state_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace scaletune::kernels {
namespace {

/// The rank whose shard holds element `i`, or -1 when none does (a naive scan).
int owner(const ShardLayout& layout, std::size_t i) {
  for (std::size_t r = 0; r < layout.counts.size(); ++r)
    if (i >= layout.offsets[r] && i < layout.offsets[r] + layout.counts[r])
      return static_cast<int>(r);
  return -1;
}

/// Random fractions [ranks] summing to 1, each rank zero with probability 1/4 (at least one not).
std::vector<double> random_fractions(std::mt19937& rng, int ranks) {
  std::uniform_real_distribution<double> weight(0.01, 1.0);
  std::bernoulli_distribution empty(0.25);
  std::vector<double> f(static_cast<std::size_t>(ranks));
  for (double& x : f) x = empty(rng) ? 0.0 : weight(rng);
  if (std::accumulate(f.begin(), f.end(), 0.0) == 0.0) f.back() = 1.0;
  const double sum = std::accumulate(f.begin(), f.end(), 0.0);
  for (double& x : f) x /= sum;
  return f;
}

/// The layout's invariants against the definition: counts sum to total, offsets are the
/// exclusive prefix sums, each count is the floor or ceiling of total * f_r (0 for f_r = 0),
/// and every rank rounded up has a fractional part >= that of every holder rounded down.
void expect_layout_of(const ShardLayout& layout, std::size_t total,
                      const std::vector<double>& fractions) {
  ASSERT_EQ(layout.counts.size(), fractions.size());
  ASSERT_EQ(layout.offsets.size(), fractions.size());
  std::size_t offset = 0;
  double lowest_up = std::numeric_limits<double>::infinity();
  double highest_down = -1.0;
  for (std::size_t r = 0; r < fractions.size(); ++r) {
    EXPECT_EQ(layout.offsets[r], offset) << "rank " << r;
    offset += layout.counts[r];
    const double quota = static_cast<double>(total) * fractions[r];
    EXPECT_LT(std::abs(static_cast<double>(layout.counts[r]) - quota), 1.0) << "rank " << r;
    if (fractions[r] == 0.0) {
      EXPECT_EQ(layout.counts[r], 0u) << "rank " << r;
      continue;
    }
    const double part = quota - std::floor(quota);
    if (static_cast<double>(layout.counts[r]) > quota)
      lowest_up = std::min(lowest_up, part);
    else
      highest_down = std::max(highest_down, part);
  }
  EXPECT_EQ(offset, total);
  EXPECT_GE(lowest_up, highest_down - 1e-9) << "an extra element went to a smaller remainder";
}

TEST(ShardLayout, HandCases) {
  const ShardLayout a = shard_layout(10, {0.5, 0.3, 0.2});
  EXPECT_EQ(a.counts, (std::vector<std::size_t>{5, 3, 2}));
  EXPECT_EQ(a.offsets, (std::vector<std::size_t>{0, 5, 8}));
  // Quotas 10/3 each: floors 3, 3, 3; the one left over goes to the lowest rank of the tie.
  const ShardLayout b = shard_layout(10, {1.0 / 3, 1.0 / 3, 1.0 / 3});
  EXPECT_EQ(b.counts, (std::vector<std::size_t>{4, 3, 3}));
  // Quotas 1.75, 1.75, 3.5: floors 1, 1, 3; remainders .75, .75, .5 take the two left.
  const ShardLayout c = shard_layout(7, {0.25, 0.25, 0.5});
  EXPECT_EQ(c.counts, (std::vector<std::size_t>{2, 2, 3}));
  EXPECT_EQ(c.offsets, (std::vector<std::size_t>{0, 2, 4}));
  // A zero fraction gets nothing, even when it is the lowest rank of a tie.
  const ShardLayout d = shard_layout(5, {0.0, 0.5, 0.5});
  EXPECT_EQ(d.counts, (std::vector<std::size_t>{0, 3, 2}));
  EXPECT_EQ(d.offsets, (std::vector<std::size_t>{0, 0, 3}));
  EXPECT_EQ(shard_layout(0, {0.5, 0.5}).counts, (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(shard_layout(3, {1.0}).counts, (std::vector<std::size_t>{3}));
}

TEST(ShardLayout, RandomFractionsFollowTheDefinition) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> ranks(1, 7);
  std::uniform_int_distribution<std::size_t> total(0, 5000);
  for (int trial = 0; trial < 500; ++trial) {
    const std::vector<double> f = random_fractions(rng, ranks(rng));
    const std::size_t n = total(rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", total " + std::to_string(n));
    expect_layout_of(shard_layout(n, f), n, f);
  }
}

TEST(ShardLayout, RejectsBadFractions) {
  EXPECT_THROW(shard_layout(10, {}), std::invalid_argument);
  EXPECT_THROW(shard_layout(10, {1.2, -0.2}), std::invalid_argument);
  EXPECT_THROW(shard_layout(10, {std::nan(""), 1.0}), std::invalid_argument);
  EXPECT_THROW(shard_layout(10, {std::numeric_limits<double>::infinity(), 0.0}),
               std::invalid_argument);
  EXPECT_THROW(shard_layout(10, {0.5, 0.4}), std::invalid_argument);
  EXPECT_THROW(shard_layout(10, {0.5, 0.5 + 1e-5}), std::invalid_argument);
  EXPECT_NO_THROW(shard_layout(10, {0.5, 0.5 + 1e-7}));  // within the documented 1e-6
}

TEST(UnitCounts, MatchANaiveScanOfRandomLayoutsAndRanges) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> ranks(1, 6);
  std::uniform_int_distribution<std::size_t> total(0, 400);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = total(rng);
    const ShardLayout layout = shard_layout(n, random_fractions(rng, ranks(rng)));
    std::uniform_int_distribution<std::size_t> point(0, n);
    std::size_t begin = point(rng), end = point(rng);
    if (begin > end) std::swap(begin, end);
    std::vector<std::size_t> expected(layout.counts.size(), 0);
    for (std::size_t i = begin; i < end; ++i)
      ++expected[static_cast<std::size_t>(owner(layout, i))];
    const std::vector<std::size_t> got = unit_counts(layout, begin, end);
    EXPECT_EQ(got, expected) << "trial " << trial << ": [" << begin << ", " << end << ")";
    EXPECT_EQ(std::accumulate(got.begin(), got.end(), std::size_t{0}), end - begin);
  }
}

TEST(UnitCounts, HandCaseAndBadRange) {
  const ShardLayout layout = shard_layout(10, {0.5, 0.3, 0.2});  // [0,5) [5,8) [8,10)
  EXPECT_EQ(unit_counts(layout, 3, 9), (std::vector<std::size_t>{2, 3, 1}));
  EXPECT_EQ(unit_counts(layout, 4, 4), (std::vector<std::size_t>{0, 0, 0}));
  EXPECT_THROW(unit_counts(layout, 6, 5), std::invalid_argument);
}

TEST(OffsetInShard, MatchesANaiveScan) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> ranks(1, 6);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t n = 200;
    const ShardLayout layout = shard_layout(n, random_fractions(rng, ranks(rng)));
    for (std::size_t r = 0; r < layout.counts.size(); ++r)
      for (std::size_t begin = 0; begin <= n; ++begin) {
        // The position in rank r's shard of the first element >= begin that r holds; 0 if none.
        std::size_t expected = 0;
        for (std::size_t i = begin; i < n; ++i)
          if (owner(layout, i) == static_cast<int>(r)) {
            expected = i - layout.offsets[r];
            break;
          }
        ASSERT_EQ(offset_in_shard(layout, static_cast<int>(r), begin), expected)
            << "trial " << trial << ", rank " << r << ", begin " << begin;
      }
  }
}

TEST(OffsetInShard, HandCase) {
  const ShardLayout layout = shard_layout(10, {0.5, 0.3, 0.2});  // [0,5) [5,8) [8,10)
  EXPECT_EQ(offset_in_shard(layout, 0, 3), 3u);
  EXPECT_EQ(offset_in_shard(layout, 1, 3), 0u);  // starts before the shard
  EXPECT_EQ(offset_in_shard(layout, 1, 6), 1u);
  EXPECT_EQ(offset_in_shard(layout, 0, 6), 0u);   // past the shard: holds none
  EXPECT_EQ(offset_in_shard(layout, 2, 10), 0u);  // an empty range at the end
}

}  // namespace
}  // namespace scaletune::kernels
