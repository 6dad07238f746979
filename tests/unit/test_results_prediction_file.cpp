// Prediction files (scaletune predict --out): each row's described configuration and basis
// written and read back equal, a file without them read as rows without them, and a described
// configuration that is not its row's or breaks the result-file rules refused before anything
// is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "harness/results/prediction_file.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::results {
namespace {

/// The row of a predicted configuration: `described` as run would record it, its step time
/// the predicted one.
PredictionRow row_of(ConfigResult described, double step_s) {
  described.status = Status::ok;
  described.error.clear();
  described.step_time_median = described.step_time_p95 = step_s;
  described.throughput = described.global_batch / step_s;
  PredictionRow row;
  row.config = described.id;
  row.ranks = described.ranks;
  row.step_time = step_s;
  row.throughput = described.throughput;
  row.measured_step_time = std::numeric_limits<double>::quiet_NaN();
  row.described = std::move(described);
  row.basis = {"all_reduce curve at 4 ranks (from nccl-tests:all_reduce_perf.log)",
               "conv2d: batch 24 above the profiled 16"};
  return row;
}

TEST(PredictionFile, DescribedConfigurationsAndBasisReadBackEqual) {
  const test::TempDir dir;
  const std::string path = dir.file("pred.h5");
  const PredictionRow row = row_of(test::timeout_config(), 0.125);
  PredictionRow bare = row_of(test::oom_config(), 0.5);
  bare.described = {};
  bare.basis.clear();
  write_prediction_file(path, test::sample_provenance(), {row, bare});
  const std::vector<PredictionRow> back = read_prediction_file(path);
  ASSERT_EQ(back.size(), 2U);
  test::expect_same(back[0].described, row.described);
  EXPECT_EQ(back[0].basis, row.basis);
  EXPECT_TRUE(back[1].described.id.empty());
  EXPECT_TRUE(back[1].basis.empty());
  EXPECT_DOUBLE_EQ(back[1].step_time, 0.5);
}

TEST(PredictionFile, ADescribedConfigurationOfAnotherRowIsRefusedAndNothingWritten) {
  const test::TempDir dir;
  const std::string path = dir.file("pred.h5");
  PredictionRow row = row_of(test::timeout_config(), 0.125);
  row.config = "resnet50-r8-b96-even";
  const std::string error =
      test::error_of([&] { write_prediction_file(path, test::sample_provenance(), {row}); });
  EXPECT_TRUE(test::contains(error, "/predictions/configs/resnet50-r4-b96-even"));
  EXPECT_TRUE(test::contains(error, "describes another configuration than its row"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PredictionFile, ADescribedConfigurationBreakingTheRulesIsRefusedAndNothingWritten) {
  const test::TempDir dir;
  const std::string path = dir.file("pred.h5");
  PredictionRow row = row_of(test::timeout_config(), 0.125);
  row.described.per_rank_batch = {24, 24, 24};  // 3 entries for 4 ranks
  const std::string error =
      test::error_of([&] { write_prediction_file(path, test::sample_provenance(), {row}); });
  EXPECT_TRUE(test::contains(error, "/predictions/configs/resnet50-r4-b96-even"));
  EXPECT_TRUE(test::contains(error, "per_rank_batch"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace scaletune::results
