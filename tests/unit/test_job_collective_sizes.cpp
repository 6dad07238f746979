// Message sizes of the collectives benchmark: checked against naive loops written here (whole
// and rational factors in exact integer arithmetic), nccl-tests' documented example and the size
// column of real nccl-tests logs.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/job/collective_sizes.hpp"

namespace {

using scaletune::job::collective_sizes;
using scaletune::job::CollectivesOptions;
using scaletune::job::next_collective_size;
using Sizes = std::vector<std::int64_t>;

CollectivesOptions options(std::int64_t min_bytes, std::int64_t max_bytes, double step_factor) {
  CollectivesOptions o;
  o.min_bytes = min_bytes;
  o.max_bytes = max_bytes;
  o.step_factor = step_factor;
  return o;
}

/// nccl-tests' loop for a whole factor: size = size * factor while size <= max.
Sizes whole_factor_sizes(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t factor) {
  Sizes sizes;
  for (std::int64_t size = min_bytes; size <= max_bytes; size *= factor) sizes.push_back(size);
  return sizes;
}

/// The same loop for the factor numerator / denominator in exact integers: the next size is
/// floor(size * numerator / denominator), or size + 1 when that would not grow.
Sizes rational_factor_sizes(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t numerator,
                            std::int64_t denominator) {
  Sizes sizes;
  for (std::int64_t size = min_bytes; size <= max_bytes;) {
    sizes.push_back(size);
    const std::int64_t next = size * numerator / denominator;
    size = next > size ? next : size + 1;
  }
  return sizes;
}

/// The "size" column of the data rows of a nccl-tests log whose type column is `type`.
Sizes logged_sizes(const std::string& log_name, const std::string& type) {
  std::ifstream in(std::string(SCALETUNE_SHARED_DIR) + "/data/nccl-tests/" + log_name);
  EXPECT_TRUE(in.good()) << log_name;
  Sizes sizes;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::int64_t size = 0;
    std::int64_t count = 0;
    std::string row_type;
    if (fields >> size >> count >> row_type && row_type == type) sizes.push_back(size);
  }
  return sizes;
}

TEST(CollectiveSizes, NcclTestsDocumentedExampleGivesTwentyFiveSizes) {
  // nccl-tests README: -b 8 -e 128M -f 2 runs 8 B, 16 B, ..., 128 MiB.
  const Sizes sizes = collective_sizes(options(8, 128 << 20, 2.0));
  ASSERT_EQ(sizes.size(), 25u);
  EXPECT_EQ(sizes.front(), 8);
  EXPECT_EQ(sizes.back(), 128 << 20);
  EXPECT_EQ(sizes, whole_factor_sizes(8, 128 << 20, 2));
}

TEST(CollectiveSizes, MatchTheSizesOfARealAllReduceLog) {
  // all_reduce_perf -b 8 -e 8G -f 2 on 16 H100s: the log's size column, 31 rows.
  const Sizes logged = logged_sizes("nccl_h100_2node_16gpu_a3mega_allreduce.log", "float");
  ASSERT_EQ(logged.size(), 31u);
  EXPECT_EQ(collective_sizes(options(8, 8LL << 30, 2.0)), logged);
}

TEST(CollectiveSizes, MatchTheSizesOfARealSendRecvLog) {
  // sendrecv_perf -b 128M -e 1G -f 2: four rows, the last one max_bytes exactly.
  const Sizes logged = logged_sizes("nccl_a100_8gpu_nvlink_sendrecv_fragment.log", "float");
  ASSERT_EQ(logged.size(), 4u);
  EXPECT_EQ(collective_sizes(options(128 << 20, 1 << 30, 2.0)), logged);
}

TEST(CollectiveSizes, WholeFactorsFollowTheNaiveLoop) {
  for (const std::int64_t factor : {2, 3, 4, 10, 1024}) {
    for (const std::int64_t min_bytes : {1, 7, 8, 1000}) {
      for (const std::int64_t max_bytes : {min_bytes, std::int64_t{65536}, std::int64_t{1} << 40}) {
        if (max_bytes < min_bytes) continue;
        SCOPED_TRACE(std::to_string(min_bytes) + ".." + std::to_string(max_bytes) + " x" +
                     std::to_string(factor));
        EXPECT_EQ(collective_sizes(options(min_bytes, max_bytes, static_cast<double>(factor))),
                  whole_factor_sizes(min_bytes, max_bytes, factor));
      }
    }
  }
}

TEST(CollectiveSizes, FractionalFactorsTruncateLikeExactArithmetic) {
  struct Factor {
    double value;
    std::int64_t numerator, denominator;
  };
  // 1.5 and 1.25 are exact in binary; 1.1 and 1.15 are not (1.15 is 1.1499999999999999).
  for (const Factor f : {Factor{1.5, 3, 2}, Factor{1.25, 5, 4}, Factor{1.1, 11, 10},
                         Factor{1.15, 23, 20}, Factor{2.5, 5, 2}}) {
    for (const std::int64_t min_bytes : {1, 8, 100, 1000}) {
      SCOPED_TRACE(std::to_string(f.value) + " from " + std::to_string(min_bytes));
      EXPECT_EQ(collective_sizes(options(min_bytes, 1 << 30, f.value)),
                rational_factor_sizes(min_bytes, 1 << 30, f.numerator, f.denominator));
    }
  }
}

TEST(CollectiveSizes, FactorNearOneStillMakesProgress) {
  // 1 x 1.5 truncates to 1 and 8 x 1.1 to 8: the size grows by one byte instead.
  EXPECT_EQ(collective_sizes(options(1, 10, 1.5)), (Sizes{1, 2, 3, 4, 6, 9}));
  EXPECT_EQ(collective_sizes(options(8, 12, 1.1)), (Sizes{8, 9, 10, 11, 12}));
  EXPECT_EQ(next_collective_size(1, 1.5), 2);
  EXPECT_EQ(next_collective_size(3, 1.5), 4);
}

TEST(CollectiveSizes, MaxIsIncludedWhenAStepHitsItExactly) {
  EXPECT_EQ(collective_sizes(options(8, 64, 2.0)), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(collective_sizes(options(8, 63, 2.0)), (Sizes{8, 16, 32}));
  // 100 x 1.15 is 114.99999999999999 in doubles; the exact product 115 is max_bytes.
  EXPECT_EQ(collective_sizes(options(100, 115, 1.15)), (Sizes{100, 115}));
  EXPECT_EQ(next_collective_size(100, 1.15), 115);
  EXPECT_EQ(collective_sizes(options(5, 5, 2.0)), (Sizes{5}));
}

TEST(CollectiveSizes, LargestRangeAndFactorStayExact) {
  const std::int64_t tib = std::int64_t{1} << 40;
  EXPECT_EQ(collective_sizes(options(1, tib, 1024.0)), (Sizes{1, 1 << 10, 1 << 20, 1 << 30, tib}));
  EXPECT_EQ(collective_sizes(options(1, tib, 2.0)).size(), 41u);
  EXPECT_EQ(next_collective_size(tib, 1024.0), std::int64_t{1} << 50);
}

TEST(CollectiveSizes, TooManySizesAreRefusedQuickly) {
  // 1.0001 adds one byte per step below 10,000 B: 1..1024 is 1024 sizes, 1..1025 one too many.
  EXPECT_EQ(collective_sizes(options(1, 1024, 1.0001)).size(), 1024u);
  EXPECT_THROW(collective_sizes(options(1, 1025, 1.0001)), std::length_error);
  // The smallest factor over the largest range would take about 2^40 steps without the limit.
  EXPECT_THROW(collective_sizes(options(1, std::int64_t{1} << 40, 1.0 + 1e-15)), std::length_error);
}

TEST(CollectiveSizes, OutOfRangeOptionsAreRefused) {
  const std::int64_t tib = std::int64_t{1} << 40;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(collective_sizes(options(0, 8, 2.0)), std::invalid_argument);
  EXPECT_THROW(collective_sizes(options(8, tib + 1, 2.0)), std::invalid_argument);
  EXPECT_THROW(collective_sizes(options(16, 8, 2.0)), std::invalid_argument);
  EXPECT_THROW(collective_sizes(options(8, 64, 1.0)), std::invalid_argument);
  EXPECT_THROW(collective_sizes(options(8, 64, 1024.5)), std::invalid_argument);
  EXPECT_THROW(collective_sizes(options(8, 64, nan)), std::invalid_argument);
  EXPECT_THROW(next_collective_size(0, 2.0), std::invalid_argument);
  EXPECT_THROW(next_collective_size(8, 0.5), std::invalid_argument);
}

}  // namespace
