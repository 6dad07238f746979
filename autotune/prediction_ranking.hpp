#pragma once
// `scaletune autotune RESULTS.h5 --predictions PRED.h5`: measured and predicted configurations
// ranked together and always marked apart, the model's error on the configurations that were
// both measured and predicted, and "measure next": the predicted-best configurations nobody
// ran, with the models (and their files) each prediction rests on.

#include <set>
#include <span>
#include <string>
#include <vector>

#include "autotune/metrics.hpp"
#include "autotune/recommend.hpp"
#include "harness/results/prediction_file.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// A configuration both measured (ok) and predicted.
struct ModelError {
  std::string id;
  int ranks = 0;
  double predicted_s = 0;  ///< predicted step time, s
  double measured_s = 0;   ///< median measured step time, s
  /// predicted_s / measured_s - 1 (signed fraction)
  double error() const { return predicted_s / measured_s - 1.0; }
};

/// What rank_with_predictions() found.
struct PredictionRanking {
  /// compute_metrics() of the measured configurations (in file order) and then the predicted
  /// ones nobody measured (in prediction-file order), as one set: a predicted configuration's
  /// scaling efficiency is against its series' baseline, measured where one was.
  std::vector<ConfigMetrics> metrics;
  std::set<std::string> predicted;  ///< ids in `metrics` that were predicted, not measured
  /// The ok configurations of `metrics`, best first (objective_order()).
  std::vector<const ConfigMetrics*> order;
  std::vector<ModelError> errors;  ///< measured ok and predicted, in measured file order
  /// Predicted configurations that were measured but did not finish ok: "id (oom)".
  std::vector<std::string> measured_failed;
  /// The basis lines (results::PredictionRow::basis) of each predicted id
  std::vector<std::pair<std::string, std::vector<std::string>>> basis;
  Objective objective = Objective::efficiency_floor;
};

/// Joins the predictions `rows` of file `predictions_path` to the measured `results` and ranks
/// them together by `objective`. Throws std::invalid_argument naming the file and the
/// configuration for a row without its described configuration (a file of an older scaletune
/// predict), and what compute_metrics() throws.
PredictionRanking rank_with_predictions(const results::ResultSet& results,
                                        const std::string& predictions_path,
                                        std::span<const results::PredictionRow> rows,
                                        Objective objective, const MetricsOptions& options = {});

/// Geometric mean of |error| over `errors` (an error below 1e-6 counts as 1e-6), fraction; NaN
/// when there are none.
double geomean_abs_error(std::span<const ModelError> errors);

/// How many predicted configurations "measure next" lists at most.
inline constexpr std::size_t kMeasureNext = 3;

/// The predicted configurations of ranking.order that come first, at most `count`: the ones worth
/// measuring next.
std::vector<const ConfigMetrics*> measure_next(const PredictionRanking& ranking,
                                               std::size_t count = kMeasureNext);

/// The section as console text and as Markdown (a "## With predictions" section).
struct PredictionSection {
  std::string console;
  std::string markdown;
};

/// The ranking's report: the model's error on the measured configurations with its geomean, the
/// joint ranking (source measured or predicted, ranks, throughput, scaling efficiency, step
/// time), "measure next" and the basis of those configurations' predictions.
PredictionSection prediction_section(const PredictionRanking& ranking);

}  // namespace scaletune::autotune
