#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/host/detail/row_sort.hpp"

namespace {

using scaletune::kernels::detail::radix_sort_by_row;
using scaletune::kernels::detail::RowBag;

/// `n` pairs in ascending bag order (several lookups per bag), rows drawn from [0, rows).
std::vector<RowBag> lookups(std::size_t n, std::int64_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> row(0, rows - 1);
  std::vector<RowBag> out;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(row(rng), i / 3);
  return out;
}

/// The reference: a comparison sort on (row, bag), what the backward used before.
std::vector<RowBag> sorted_by_std(std::vector<RowBag> pairs) {
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

TEST(RadixSortByRow, EqualsStdSortOnRowsOfOneToFiveDigits) {
  for (std::int64_t rows :
       {std::int64_t{1}, std::int64_t{7}, std::int64_t{2048}, std::int64_t{2049},
        std::int64_t{150000}, std::int64_t{1} << 33, std::int64_t{1} << 54}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{4000}}) {
      std::vector<RowBag> pairs = lookups(n, rows, static_cast<std::uint64_t>(rows) + n);
      const std::vector<RowBag> expected = sorted_by_std(pairs);
      std::vector<RowBag> scratch = {{9, 9}};
      radix_sort_by_row(pairs, scratch);
      EXPECT_EQ(pairs, expected) << "rows " << rows << ", " << n << " lookups";
    }
  }
}

TEST(RadixSortByRow, KeepsTheGivenOrderOfEqualRows) {
  // Bags given out of order: a stable sort by row keeps them as given, (row, bag) order would not.
  std::vector<RowBag> pairs = {{5, 3}, {2, 9}, {5, 1}, {2, 0}, {4097, 2}, {5, 2}};
  std::vector<RowBag> scratch;
  radix_sort_by_row(pairs, scratch);
  const std::vector<RowBag> expected = {{2, 9}, {2, 0}, {5, 3}, {5, 1}, {5, 2}, {4097, 2}};
  EXPECT_EQ(pairs, expected);
}

}  // namespace
