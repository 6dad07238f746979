// The reuse histogram against a naive reference (a map of counts and the bins' definition) on
// small hand-made inputs, including counts on every bin edge; the profile (distinct rows and
// histogram) in its sorted, sorted-range and counted forms against the same reference.

#include "kernels/host/reuse_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sk = scaletune::kernels;

namespace {

/// Naive reference: bins (0,1], (1,2], (2,4], ..., (2^14, 2^15], (2^15, inf) by their edges.
std::vector<double> naive_histogram(const std::vector<std::int64_t>& indices) {
  std::map<std::int64_t, std::int64_t> counts;
  for (const auto i : indices) ++counts[i];
  std::vector<double> shares(17, 0.0);
  for (const auto& [index, count] : counts) {
    std::size_t bin = 16;
    for (std::size_t b = 0; b < 16; ++b) {
      const std::int64_t upper = std::int64_t{1} << b;
      const std::int64_t lower = b == 0 ? 0 : upper / 2;
      if (count > lower && count <= upper) bin = b;
    }
    shares[bin] += 1.0 / static_cast<double>(counts.size());
  }
  return shares;
}

/// `copies` accesses of `index`, appended.
void append(std::vector<std::int64_t>& out, std::int64_t index, std::int64_t copies) {
  out.insert(out.end(), static_cast<std::size_t>(copies), index);
}

void expect_matches_naive(const std::vector<std::int64_t>& indices) {
  const auto shares = sk::reuse_histogram(indices);
  const auto reference = naive_histogram(indices);
  for (std::size_t b = 0; b < sk::reuse_bin_count; ++b) {
    EXPECT_NEAR(shares[b], reference[b], 1e-15) << "bin " << b;
  }
}

}  // namespace

TEST(ReuseHistogram, EmptyInputIsAllZero) {
  for (const double share : sk::reuse_histogram({})) EXPECT_EQ(share, 0.0);
}

TEST(ReuseHistogram, HandMadeSharesFromTheDefinition) {
  // Index 5 once, 9 twice, -3 three times, 7 four times: bins 0, 1, 2, 2.
  const std::vector<std::int64_t> indices = {7, 9, -3, 5, 7, -3, 9, 7, -3, 7};
  const auto shares = sk::reuse_histogram(indices);
  EXPECT_DOUBLE_EQ(shares[0], 0.25);
  EXPECT_DOUBLE_EQ(shares[1], 0.25);
  EXPECT_DOUBLE_EQ(shares[2], 0.5);
  for (std::size_t b = 3; b < sk::reuse_bin_count; ++b) EXPECT_EQ(shares[b], 0.0);
  expect_matches_naive(indices);
}

TEST(ReuseHistogram, CountsOnEveryBinEdgeMatchNaive) {
  std::vector<std::int64_t> indices;
  std::int64_t index = 0;
  for (int e = 0; e <= 15; ++e) {
    append(indices, index++, std::int64_t{1} << e);        // upper edge of bin e
    append(indices, index++, (std::int64_t{1} << e) + 1);  // first count of the next bin
  }
  append(indices, index++, 100'000);
  expect_matches_naive(indices);
  const auto shares = sk::reuse_histogram(indices);
  EXPECT_DOUBLE_EQ(shares[16], 2.0 / 33.0);  // counts 2^15 + 1 and 100000
  EXPECT_DOUBLE_EQ(shares[0], 1.0 / 33.0);   // count 1 only; count 2 is in bin 1
}

TEST(ReuseHistogram, ShuffledLargeInputMatchesNaive) {
  std::vector<std::int64_t> indices;
  for (std::int64_t i = 0; i < 300; ++i) append(indices, (i * 7919) % 1009 - 500, 1 + (i * i) % 70);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    std::swap(indices[i], indices[(i * 104729) % indices.size()]);
  }
  expect_matches_naive(indices);
}

TEST(ReuseBin, EdgesAndErrors) {
  EXPECT_EQ(sk::reuse_bin(1), 0u);
  EXPECT_EQ(sk::reuse_bin(2), 1u);
  EXPECT_EQ(sk::reuse_bin(3), 2u);
  EXPECT_EQ(sk::reuse_bin(4), 2u);
  EXPECT_EQ(sk::reuse_bin(5), 3u);
  EXPECT_EQ(sk::reuse_bin(32'768), 15u);
  EXPECT_EQ(sk::reuse_bin(32'769), 16u);
  EXPECT_THROW(sk::reuse_bin(0), std::invalid_argument);
}

TEST(ReuseProfile, SortedAndCountedFormsMatchNaiveOnEveryRowBlock) {
  // Indices in [0, 400): the profile of the whole, and of each block of rows, from a sort of
  // the indices, from the sorted sequence's sub-range and from counts per row all agree with
  // the naive reference, and distinct is the number of rows read.
  std::vector<std::int64_t> indices;
  for (std::int64_t i = 0; i < 250; ++i) append(indices, (i * 7919) % 400, 1 + (i * i) % 40);
  std::vector<std::int64_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> counts(400, 0);
  for (const auto i : indices) ++counts[static_cast<std::size_t>(i)];
  for (const auto& [begin, end] : {std::pair{0, 400}, std::pair{0, 133}, std::pair{133, 266},
                                   std::pair{266, 400}, std::pair{10, 10}}) {
    std::vector<std::int64_t> block;
    for (const auto i : indices)
      if (i >= begin && i < end) block.push_back(i);
    const auto reference = naive_histogram(block);
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), begin);
    const auto last = std::lower_bound(sorted.begin(), sorted.end(), end);
    const sk::ReuseProfile profiles[] = {
        sk::reuse_profile(block),
        sk::reuse_profile_sorted({&*first, static_cast<std::size_t>(last - first)}),
        sk::reuse_profile_counts({counts.data() + begin, static_cast<std::size_t>(end - begin)})};
    std::map<std::int64_t, int> distinct;
    for (const auto i : block) ++distinct[i];
    for (const sk::ReuseProfile& p : profiles) {
      EXPECT_EQ(p.distinct, static_cast<std::int64_t>(distinct.size())) << begin << ".." << end;
      for (std::size_t b = 0; b < sk::reuse_bin_count; ++b)
        EXPECT_NEAR(p.shares[b], reference[b], 1e-15) << "bin " << b;
    }
  }
}
