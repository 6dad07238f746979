// The comparison every device test relies on must be able to fail: it flags values outside
// rel_tol * max(1, |want|), NaN, and size mismatches, and accepts values inside.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/device/device_test_support.hpp"

namespace scaletune::device::testing {
namespace {

TEST(ExpectAllClose, AcceptsValuesWithinRelativeTolerance) {
  // 1e-3 * max(1, |want|): 1000 may be off by 0.9, 0.5 by 0.0009 (absolute below 1).
  const std::vector<float> want{1000.0f, 0.5f, -2.0f};
  const std::vector<float> got{1000.9f, 0.5009f, -2.0019f};
  expect_all_close(got, want, 1e-3, "within");
}

TEST(ExpectAllClose, FlagsValuesOutsideToleranceAndNaN) {
  const std::vector<float> want{1000.0f, 0.5f};
  EXPECT_NONFATAL_FAILURE(expect_all_close(std::vector<float>{1001.5f, 0.5f}, want, 1e-3, "big"),
                          "1 of 2 elements differ; first [0]");
  EXPECT_NONFATAL_FAILURE(expect_all_close(std::vector<float>{1000.0f, 0.5011f}, want, 1e-3, "s"),
                          "first [1]");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NONFATAL_FAILURE(expect_all_close(std::vector<float>{nan, nan}, want, 1e-3, "nan"),
                          "2 of 2 elements differ");
}

TEST(ExpectAllClose, FlagsSizeMismatch) {
  EXPECT_FATAL_FAILURE(
      expect_all_close(std::vector<float>{1.0f}, std::vector<float>{1.0f, 2.0f}, 1e-3, "sizes"),
      "sizes");
}

}  // namespace
}  // namespace scaletune::device::testing
