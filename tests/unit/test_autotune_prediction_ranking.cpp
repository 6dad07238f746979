// autotune --predictions: measured and predicted configurations ranked together, the model's
// error where both exist, and "measure next", on a hand-built sweep whose right answers follow
// from the definitions: scaling efficiency E(p) = X(p) / (p X(1)) against the measured 1-rank
// baseline, error = predicted / measured - 1.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/prediction_ranking.hpp"
#include "tests/unit/test_autotune_fixtures.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;
using at::Objective;

namespace {

constexpr int kBatch = 256;

/// A measured configuration whose every rank spends `step_s` in one phase.
rs::ConfigResult measured(const std::string& id, int ranks, double step_s) {
  return at::testing::make_ok_config(
      id, ranks, kBatch, 5, {"fwd"}, [=](int, int, int) { return step_s; }, 0.0);
}

/// A prediction row as scaletune predict writes it, with its described configuration.
rs::PredictionRow predicted(const std::string& id, int ranks, double step_s) {
  rs::PredictionRow row;
  row.config = id;
  row.ranks = ranks;
  row.step_time = step_s;
  row.throughput = kBatch / step_s;
  row.described = at::testing::even_config(id, ranks, kBatch);
  row.described.step_time_median = row.described.step_time_p95 = step_s;
  row.described.throughput = kBatch / step_s;
  row.basis = {"all_reduce across 2..8 ranks, extrapolated to " + std::to_string(ranks) +
               " ranks (from nccl.h5)"};
  return row;
}

rs::ResultSet sweep() {
  rs::ResultSet set;
  set.path = "measured.h5";
  set.configs = {measured("r1", 1, 0.100), measured("r2", 2, 0.060),
                 at::testing::make_failed_config("r16", 16, kBatch, rs::Status::oom, "oom")};
  return set;
}

const std::vector<rs::PredictionRow> kRows = {predicted("r2", 2, 0.063), predicted("r4", 4, 0.040),
                                              predicted("r8", 8, 0.030),
                                              predicted("r16", 16, 0.025)};

std::vector<std::string> ids_of(const std::vector<const at::ConfigMetrics*>& order) {
  std::vector<std::string> ids;
  for (const at::ConfigMetrics* m : order) ids.push_back(m->id);
  return ids;
}

const at::ConfigMetrics& metrics_of(const at::PredictionRanking& r, const std::string& id) {
  for (const at::ConfigMetrics& m : r.metrics)
    if (m.id == id) return m;
  throw std::logic_error("no metrics for " + id);
}

}  // namespace

TEST(AutotunePredictionRanking, JoinsPredictionsToMeasurementsAndMarksThemApart) {
  const at::PredictionRanking r =
      at::rank_with_predictions(sweep(), "pred.h5", kRows, Objective::efficiency_floor);
  // r2 was measured: it gives the model's error; r4 and r8 nobody ran; r16 ran out of memory.
  ASSERT_EQ(r.errors.size(), 1U);
  EXPECT_EQ(r.errors[0].id, "r2");
  EXPECT_DOUBLE_EQ(r.errors[0].measured_s, 0.060);
  EXPECT_NEAR(r.errors[0].error(), 0.063 / 0.060 - 1.0, 1e-12);
  EXPECT_NEAR(at::geomean_abs_error(r.errors), 0.05, 1e-9);
  EXPECT_EQ(r.predicted, (std::set<std::string>{"r4", "r8"}));
  EXPECT_EQ(r.measured_failed, (std::vector<std::string>{"r16 (oom)"}));
  // Efficiencies against the measured 1-rank baseline X(1) = 256 / 0.1 = 2560 samples/s.
  EXPECT_NEAR(metrics_of(r, "r4").scaling_efficiency, (kBatch / 0.040) / (4 * 2560.0), 1e-9);
  EXPECT_NEAR(metrics_of(r, "r8").scaling_efficiency, (kBatch / 0.030) / (8 * 2560.0), 1e-9);
  EXPECT_EQ(metrics_of(r, "r4").baseline_id, "r1");
  // Floor 0.7: r2 (0.83) and r1 reach it; r8 (0.42) and r4 (0.63) follow by throughput.
  EXPECT_EQ(ids_of(r.order), (std::vector<std::string>{"r2", "r1", "r8", "r4"}));
  EXPECT_EQ(ids_of(at::measure_next(r)), (std::vector<std::string>{"r8", "r4"}));
  EXPECT_EQ(ids_of(at::measure_next(r, 1)), (std::vector<std::string>{"r8"}));
}

TEST(AutotunePredictionRanking, TheObjectiveOrdersTheJointRanking) {
  const at::PredictionRanking r =
      at::rank_with_predictions(sweep(), "pred.h5", kRows, Objective::throughput);
  EXPECT_EQ(ids_of(r.order), (std::vector<std::string>{"r8", "r4", "r2", "r1"}));
}

TEST(AutotunePredictionRanking, TheSectionMarksEverySourceAndSaysWhatPredictionsRestOn) {
  const at::PredictionSection s = at::prediction_section(
      at::rank_with_predictions(sweep(), "pred.h5", kRows, Objective::efficiency_floor));
  for (const std::string& text : {s.console, s.markdown}) {
    EXPECT_NE(text.find("geomean |error| over 1 measured configurations: 5.0%"), std::string::npos)
        << text;
    EXPECT_NE(text.find("r8: predicted 8,533.3 samples/s on 8 ranks (scaling efficiency 0.42)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("rests on: all_reduce across 2..8 ranks, extrapolated to 4 ranks (from "
                        "nccl.h5)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("r16 (oom)"), std::string::npos) << text;
  }
  EXPECT_NE(s.markdown.find("| 1 | measured | r2 |"), std::string::npos) << s.markdown;
  EXPECT_NE(s.markdown.find("| 3 | predicted | r8 |"), std::string::npos) << s.markdown;
}

TEST(AutotunePredictionRanking, AModelMissingTheMeasuredStepsByMoreThanTenPercentIsFlagged) {
  const auto warning = [](double predicted_r2_s) {
    std::vector<rs::PredictionRow> rows = kRows;
    rows[0] = predicted("r2", 2, predicted_r2_s);
    return at::prediction_section(
               at::rank_with_predictions(sweep(), "pred.h5", rows, Objective::throughput))
        .console.find("the model misses the measured steps by more than 10%");
  };
  EXPECT_EQ(warning(0.063), std::string::npos);  // 5%
  EXPECT_NE(warning(0.030), std::string::npos);  // 50%
}

TEST(AutotunePredictionRanking, ARowWithoutItsDescribedConfigurationNamesTheFile) {
  std::vector<rs::PredictionRow> rows = kRows;
  rows[1].described = {};
  try {
    at::rank_with_predictions(sweep(), "pred.h5", rows, Objective::throughput);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pred.h5: /predictions/configs/r4 is missing"),
              std::string::npos)
        << e.what();
  }
}
