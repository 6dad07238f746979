#include "autotune/epochs_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace scaletune::autotune {
namespace {

void check_runs(std::span<const TrainingRun> runs) {
  for (const TrainingRun& run : runs)
    if (!(run.global_batch > 0.0) || !(run.epochs > 0.0))
      throw std::invalid_argument("run '" + run.id + "': global batch " +
                                  std::to_string(run.global_batch) + ", epochs " +
                                  std::to_string(run.epochs) + " (expected both positive)");
  if (const std::size_t batches = distinct_global_batches(runs); batches < 2)
    throw std::invalid_argument("epochs model: needs runs at >= 2 distinct global batches, got " +
                                std::to_string(batches));
}

/// Least squares a + b·B: b = max(0, Sxy/Sxx), a = ȳ − b·x̄ (the b >= 0 optimum, see fit_epochs).
std::pair<double, double> line_fit(std::span<const TrainingRun> runs) {
  const double n = static_cast<double>(runs.size());
  double mean_b = 0.0;
  double mean_e = 0.0;
  for (const TrainingRun& run : runs) {
    mean_b += run.global_batch / n;
    mean_e += run.epochs / n;
  }
  double sxy = 0.0;
  double sxx = 0.0;
  for (const TrainingRun& run : runs) {
    sxy += (run.global_batch - mean_b) * (run.epochs - mean_e);
    sxx += (run.global_batch - mean_b) * (run.global_batch - mean_b);
  }
  const double slope = std::max(0.0, sxy / sxx);
  return {mean_e - slope * mean_b, slope};
}

}  // namespace

std::size_t distinct_global_batches(std::span<const TrainingRun> runs) {
  std::set<double> batches;
  for (const TrainingRun& run : runs) batches.insert(run.global_batch);
  return batches.size();
}

EpochsFit fit_epochs(std::span<const TrainingRun> runs) {
  check_runs(runs);
  const auto [intercept, slope] = line_fit(runs);
  if (!(intercept > 0.0))
    throw std::invalid_argument("epochs model: fitted E_min = " + std::to_string(intercept) +
                                " epochs (expected a positive value; the runs do not follow " +
                                "epochs = E_min (1 + B/B_noise))");
  EpochsFit fit{
      .epochs_min = intercept,
      .batch_noise = slope > 0.0 ? intercept / slope : std::numeric_limits<double>::infinity(),
      .rmse = 0,
      .mape = 0,
      .points = static_cast<int>(runs.size())};
  for (const TrainingRun& run : runs) {
    const double error = predict_epochs(fit, run.global_batch) - run.epochs;
    fit.rmse += error * error / fit.points;
    fit.mape += std::fabs(error) / run.epochs / fit.points;
  }
  fit.rmse = std::sqrt(fit.rmse);
  return fit;
}

double predict_epochs(const EpochsFit& fit, double global_batch) {
  return fit.epochs_min * (1.0 + global_batch / fit.batch_noise);
}

}  // namespace scaletune::autotune
