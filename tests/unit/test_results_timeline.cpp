// /configs/<id>/timeline and /predictions/timeline/<id>: spans written and read back equal, absent
// reads as empty, and spans that cannot be (a rank or iteration outside the configuration, an
// end before the begin) rejected by the reader naming the file and the dataset.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "harness/results/prediction_file.hpp"
#include "harness/results/result_file.hpp"
#include "tests/support/timeline_spans.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::results {
namespace {

using testing_support::timeline_span;
using trace::SpanKind;
using trace::TimelineSpan;

/// The sample ok configuration (3 ranks, 6 iterations) with iteration 4 of every rank.
ConfigResult timed_config() {
  ConfigResult c = test::ok_config();
  for (int r = 0; r < c.ranks; ++r) {
    c.timeline.push_back(timeline_span(r, 4, SpanKind::phase, "fwd", 0.0, 0.12));
    c.timeline.push_back(
        timeline_span(r, 4, SpanKind::collective, "all_reduce", 0.13, 0.1875, 102760448));
    c.timeline.push_back(timeline_span(r, 4, SpanKind::phase, "bwd", 0.12, 0.36));
  }
  return c;
}

std::string write_file(const test::TempDir& dir, const ConfigResult& c) {
  const std::string path = dir.file("timeline.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system()).write_config(c);
  return path;
}

TEST(ResultTimeline, RoundTripReadsBackEqual) {
  const test::TempDir dir;
  const ResultSet set = read_results(write_file(dir, timed_config()));
  ASSERT_EQ(set.configs.size(), 1u);
  test::expect_same(set.configs[0], timed_config());
  EXPECT_EQ(set.configs[0].timeline.size(), 9u);
}

TEST(ResultTimeline, ConfigurationWithoutOneReadsEmpty) {
  const test::TempDir dir;
  EXPECT_TRUE(read_results(write_file(dir, test::ok_config())).configs.at(0).timeline.empty());
}

TEST(ResultTimeline, ReaderRejectsASpanOfARankTheConfigurationHasNot) {
  const test::TempDir dir;
  ConfigResult c = timed_config();
  c.timeline.push_back(timeline_span(3, 0, SpanKind::phase, "fwd", 0, 1));
  const std::string path = write_file(dir, c);
  const std::string error = test::error_of([&] { read_results(path); });
  EXPECT_TRUE(test::contains(error, path));
  EXPECT_TRUE(test::contains(error, "/configs/" + c.id + "/timeline"));
  EXPECT_TRUE(test::contains(error, "rank 3, iteration 0 outside the configuration's 3 ranks"));
}

TEST(ResultTimeline, ReaderRejectsAnIterationPastTheStepTimes) {
  const test::TempDir dir;
  ConfigResult c = timed_config();
  c.timeline.push_back(timeline_span(0, 6, SpanKind::phase, "fwd", 0, 1));
  const std::string error = test::error_of([&] { read_results(write_file(dir, c)); });
  EXPECT_TRUE(test::contains(error, "6 iterations"));
}

TEST(ResultTimeline, ReaderRejectsASpanThatEndsBeforeItBegins) {
  const test::TempDir dir;
  ConfigResult c = timed_config();
  c.timeline.push_back(timeline_span(1, 2, SpanKind::phase, "fwd", 0.5, 0.25));
  const std::string error = test::error_of([&] { read_results(write_file(dir, c)); });
  EXPECT_TRUE(test::contains(error, "/timeline"));
  EXPECT_TRUE(test::contains(error, "a span of rank 1 ends before it begins"));
}

TEST(ResultTimeline, PredictionsKeepEachConfigurationsSpans) {
  const test::TempDir dir;
  const std::string path = dir.file("pred.h5");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PredictionRow with{"resnet50-r2-b8-even-fp32", 2, 0.5, 16, 0.4, 0.05, 0.05, 1, nan, {}, {}, {}};
  with.timeline = {timeline_span(0, 0, SpanKind::op, "gemm", 0, 0.25),
                   timeline_span(1, 0, SpanKind::collective, "all_reduce", 0.25, 0.5, 4096)};
  const PredictionRow without{
      "resnet50-r1-b8-even-fp32", 1, 0.25, 32, 0.25, 0, 0, 0, nan, {}, {}, {}};
  write_prediction_file(path, test::sample_provenance(), {without, with});
  EXPECT_TRUE(is_prediction_file(path));
  const std::vector<PredictionRow> rows = read_prediction_file(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].timeline.empty());
  EXPECT_EQ(rows[1].timeline, with.timeline);
}

TEST(ResultTimeline, AResultFileIsNoPredictionFile) {
  const test::TempDir dir;
  EXPECT_FALSE(is_prediction_file(write_file(dir, timed_config())));
}

}  // namespace
}  // namespace scaletune::results
