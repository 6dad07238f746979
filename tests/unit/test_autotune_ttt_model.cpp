// The time-to-train model: the epochs law against a naive least-squares reference, the
// composition epochs x time per epoch on a worked example, the fallback to an accelerator's fit
// over all stacks, and the honest check on real data: fitted on MLPerf Training ResNet-50
// rounds v1.0-v3.0, predicting the v3.1 submissions of the same accelerators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/mlperf_import.hpp"
#include "autotune/ttt_model.hpp"

namespace at = scaletune::autotune;
namespace results = scaletune::results;

namespace {

at::TrainingRun run(const std::string& accelerator, const std::string& stack, double devices,
                    double global_batch, double epochs, double throughput) {
  return {.id = accelerator + "-" + stack + "-" + std::to_string(static_cast<int>(devices)),
          .accelerator = accelerator,
          .stack = stack,
          .round = "v1.0",
          .devices = devices,
          .global_batch = global_batch,
          .epochs = epochs,
          .time_to_train_min = 1.0,
          .throughput = throughput};
}

/// Runs whose epochs lie on E_min (1 + B/B_noise), plus an optional offset per run.
std::vector<at::TrainingRun> epochs_runs(double epochs_min, double batch_noise,
                                         const std::vector<double>& batches,
                                         const std::vector<double>& offsets) {
  std::vector<at::TrainingRun> runs;
  for (std::size_t k = 0; k < batches.size(); ++k)
    runs.push_back(run("A", "s", 8, batches[k],
                       epochs_min * (1.0 + batches[k] / batch_noise) + offsets[k], 1000.0));
  return runs;
}

/// The least-squares line y = a + b x by the normal equations [n Σx; Σx Σx²][a b]' = [Σy Σxy]'
/// solved with Cramer's rule.
std::pair<double, double> normal_equations_line(const std::vector<at::TrainingRun>& runs) {
  double n = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
  for (const auto& r : runs) {
    n += 1;
    sx += r.global_batch;
    sxx += r.global_batch * r.global_batch;
    sy += r.epochs;
    sxy += r.global_batch * r.epochs;
  }
  const double det = n * sxx - sx * sx;
  return {(sy * sxx - sx * sxy) / det, (n * sxy - sx * sy) / det};
}

/// USL written out (Gunther 2007): X(p) = X1 p / (1 + σ(p−1) + κ p(p−1)).
double usl_formula(double x1, double sigma, double kappa, double p) {
  return x1 * p / (1.0 + sigma * (p - 1.0) + kappa * p * (p - 1.0));
}

const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";

}  // namespace

TEST(AutotuneTttModel, EpochsFitRecoversExactParameters) {
  const auto runs = epochs_runs(35.0, 40000.0, {1000, 4000, 16000, 32768, 65536}, {0, 0, 0, 0, 0});
  const at::EpochsFit fit = at::fit_epochs(runs);
  EXPECT_NEAR(fit.epochs_min, 35.0, 1e-9);
  EXPECT_NEAR(fit.batch_noise, 40000.0, 1e-6);
  EXPECT_NEAR(fit.rmse, 0.0, 1e-9);
  EXPECT_NEAR(fit.mape, 0.0, 1e-12);
  EXPECT_EQ(fit.points, 5);
  // E/E_min = 1 + B/B_noise: at B = B_noise twice the minimum epochs.
  EXPECT_NEAR(at::predict_epochs(fit, 40000.0), 70.0, 1e-9);
}

TEST(AutotuneTttModel, EpochsFitMatchesNormalEquations) {
  const auto runs = epochs_runs(34.0, 45000.0, {408, 1632, 3264, 8192, 16384, 32768, 65536},
                                {1, -1, 0.5, 2, -2, 3, -1});
  const auto [a, b] = normal_equations_line(runs);
  const at::EpochsFit fit = at::fit_epochs(runs);
  EXPECT_NEAR(fit.epochs_min, a, 1e-9 * a);
  EXPECT_NEAR(fit.batch_noise, a / b, 1e-9 * a / b);
  double sse = 0, ape = 0;
  for (const auto& r : runs) {
    const double e = a + b * r.global_batch - r.epochs;
    sse += e * e;
    ape += std::fabs(e) / r.epochs;
  }
  EXPECT_NEAR(fit.rmse, std::sqrt(sse / runs.size()), 1e-9);
  EXPECT_NEAR(fit.mape, ape / runs.size(), 1e-12);
}

TEST(AutotuneTttModel, EpochsFallingWithBatchGiveNoNoiseScale) {
  // Unconstrained slope < 0: the constrained optimum (b >= 0) is b = 0, a = mean epochs = 40.
  const std::vector<at::TrainingRun> runs = {run("A", "s", 8, 1000, 44, 1000),
                                             run("A", "s", 8, 2000, 40, 1000),
                                             run("A", "s", 8, 3000, 36, 1000)};
  const at::EpochsFit fit = at::fit_epochs(runs);
  EXPECT_DOUBLE_EQ(fit.epochs_min, 40.0);
  EXPECT_TRUE(std::isinf(fit.batch_noise));
  EXPECT_DOUBLE_EQ(at::predict_epochs(fit, 5000.0), 40.0);
  EXPECT_NEAR(fit.rmse, std::sqrt(32.0 / 3.0), 1e-12);
}

TEST(AutotuneTttModel, EpochsFitNeedsTwoBatches) {
  const std::vector<at::TrainingRun> runs = {run("A", "s", 8, 1000, 35, 1000),
                                             run("A", "s", 16, 1000, 36, 2000)};
  EXPECT_THROW(at::fit_epochs(runs), std::invalid_argument);
}

TEST(AutotuneTttModel, GroupScalingRule) {
  const std::vector<at::ScalingPoint> one_count = {{8, 8000}, {8, 9000}};
  const at::GroupFit perfect = at::fit_group_scaling("A", "s", one_count);
  EXPECT_EQ(perfect.throughput.model, "amdahl");
  EXPECT_DOUBLE_EQ(perfect.throughput.param("X1"), (1000.0 + 1125.0) / 2.0);
  EXPECT_EQ(perfect.throughput.param("s"), 0.0);
  EXPECT_EQ(perfect.distinct_devices, 1);

  const std::vector<at::ScalingPoint> three_counts = {{1, usl_formula(1000, 0.05, 0.01, 1)},
                                                      {4, usl_formula(1000, 0.05, 0.01, 4)},
                                                      {16, usl_formula(1000, 0.05, 0.01, 16)}};
  const at::GroupFit amdahl = at::fit_group_scaling("A", "s", three_counts);
  EXPECT_EQ(amdahl.throughput.model, "amdahl");
  EXPECT_NE(amdahl.selection.find("usl needs >= 4"), std::string::npos) << amdahl.selection;

  // Retrograde scaling only the USL can follow: it predicts left-out counts better.
  std::vector<at::ScalingPoint> retrograde;
  for (double p : {1, 2, 4, 8, 16, 32, 64})
    retrograde.push_back({p, usl_formula(1000, 0.05, 0.01, p)});
  const at::GroupFit usl = at::fit_group_scaling("A", "s", retrograde);
  EXPECT_EQ(usl.throughput.model, "usl") << usl.selection;
  EXPECT_NEAR(usl.throughput.param("kappa"), 0.01, 1e-6);
  EXPECT_EQ(usl.distinct_devices, 7);
}

// Worked example. Runs of GPU-A/mxnet at 8 devices, 8000 samples/s (X1 = 1000 samples/s per
// device, one device count: perfect scaling), with epochs 40 at B = 1000 and 60 at B = 3000:
// epochs = 30 + 0.01 B, so E_min = 30, B_noise = 30 / 0.01 = 3000. At 16 devices and B = 2000:
// epochs = 30 (1 + 2000/3000) = 50; X = 16 x 1000 = 16000 samples/s; with 960,000 samples per
// epoch an epoch takes 960000 / 16000 = 60 s, so time to train = 50 x 60 s = 50 min.
TEST(AutotuneTttModel, TimeToTrainComposesEpochsAndThroughput) {
  const std::vector<at::TrainingRun> runs = {run("GPU-A", "mxnet", 8, 1000, 40, 8000),
                                             run("GPU-A", "mxnet", 8, 3000, 60, 8000)};
  const at::TttModel model = at::fit_ttt_model(runs, 960000.0);
  const auto prediction = at::predict_ttt(model, "GPU-A", "mxnet", 16, 2000);
  ASSERT_TRUE(prediction.has_value());
  EXPECT_NEAR(prediction->epochs, 50.0, 1e-9);
  EXPECT_NEAR(prediction->throughput, 16000.0, 1e-9);
  EXPECT_NEAR(prediction->time_to_train_min, 50.0, 1e-9);
  EXPECT_NE(prediction->basis.find("GPU-A/mxnet"), std::string::npos) << prediction->basis;
  EXPECT_NE(prediction->basis.find("perfect scaling"), std::string::npos) << prediction->basis;
}

// GPU-A runs 1000 samples/s per device under mxnet and 500 under pytorch; a tensorflow run was
// never seen, so its throughput comes from GPU-A over all stacks: the mean per-device
// throughput (1000 + 1000 + 500) / 3 = 833.33 samples/s at one device count. GPU-B: no basis.
TEST(AutotuneTttModel, UnseenStackFallsBackToTheAccelerator) {
  const std::vector<at::TrainingRun> runs = {run("GPU-A", "mxnet", 8, 1000, 40, 8000),
                                             run("GPU-A", "mxnet", 8, 3000, 60, 8000),
                                             run("GPU-A", "pytorch", 8, 2000, 50, 4000)};
  const at::TttModel model = at::fit_ttt_model(runs, 960000.0);
  const auto prediction = at::predict_ttt(model, "GPU-A", "tensorflow", 4, 2000);
  ASSERT_TRUE(prediction.has_value());
  EXPECT_NEAR(prediction->throughput, 4 * 2500.0 / 3.0, 1e-9);
  EXPECT_NE(prediction->basis.find("GPU-A (all stacks)"), std::string::npos) << prediction->basis;
  EXPECT_FALSE(at::predict_ttt(model, "GPU-B", "mxnet", 8, 2000).has_value());

  const std::vector<at::TrainingRun> test = {run("GPU-A", "mxnet", 16, 2000, 50, 16000),
                                             run("GPU-B", "mxnet", 8, 2000, 50, 16000)};
  const at::HoldoutResult holdout = at::evaluate_holdout(runs, test, 960000.0);
  ASSERT_EQ(holdout.rows.size(), 1u);
  EXPECT_EQ(holdout.unpredictable, 1);
  // Measured 1 min (run()), predicted: epochs 50 x 960000 / 16000 s = 50 min -> APE 49.
  EXPECT_NEAR(holdout.rows[0].predicted_min, 50.0, 1e-9);
  EXPECT_NEAR(holdout.median_ape, 49.0, 1e-9);
  EXPECT_NEAR(holdout.worst_ape, 49.0, 1e-9);
}

TEST(AutotuneTttModel, TrainingRunsReadImportedConfigurations) {
  results::ConfigResult mlperf;
  mlperf.id = "mlperf-v3.1-X";
  mlperf.workload = "mlperf:resnet50";
  mlperf.ranks = 8;
  mlperf.global_batch = 3200;
  mlperf.throughput = 55000;
  mlperf.number_attrs = {{"epochs", 35}, {"time_to_train_minutes", 13.4}};
  mlperf.text_attrs = {
      {"accelerator_model", "H100-SXM-80GB"}, {"software_stack", "mxnet"}, {"round", "v3.1"}};
  results::ConfigResult ours = mlperf;
  ours.workload = "resnet50";
  const std::vector<results::ConfigResult> configs = {ours, mlperf};
  const auto runs = at::training_runs(configs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, "mlperf-v3.1-X");
  EXPECT_EQ(runs[0].accelerator, "H100-SXM-80GB");
  EXPECT_EQ(runs[0].round, "v3.1");
  EXPECT_EQ(runs[0].devices, 8.0);
  EXPECT_EQ(runs[0].epochs, 35.0);
  EXPECT_EQ(runs[0].time_to_train_min, 13.4);

  mlperf.number_attrs.erase("epochs");
  try {
    at::training_runs(std::vector<results::ConfigResult>{mlperf});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'mlperf-v3.1-X'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'epochs'"), std::string::npos) << e.what();
  }
}

// The check the issue asks for: fit on rounds v1.0-v3.0, predict v3.1.
TEST(AutotuneTttModel, PredictsRoundV31FromEarlierRounds) {
  const auto runs = at::training_runs(at::read_mlperf_csv(kCsv).configs);
  std::vector<at::TrainingRun> train, test;
  for (const auto& r : runs) (r.round == "v3.1" ? test : train).push_back(r);
  ASSERT_FALSE(train.empty());
  ASSERT_FALSE(test.empty());
  std::set<std::string> seen;
  for (const auto& r : train) seen.insert(r.accelerator);
  const auto unseen =
      std::ranges::count_if(test, [&](const auto& r) { return !seen.contains(r.accelerator); });

  const at::HoldoutResult holdout = at::evaluate_holdout(train, test);
  const at::EpochsFit epochs = at::fit_epochs(train);
  std::cout << std::fixed << std::setprecision(2) << "epochs(B) = " << epochs.epochs_min
            << " (1 + B / " << epochs.batch_noise << "), RMSE " << epochs.rmse << " epochs, MAPE "
            << 100 * epochs.mape << "% over " << epochs.points << " runs\n";
  std::cout << "id | measured min | predicted min | APE % | basis\n";
  for (const auto& row : holdout.rows)
    std::cout << row.id << " | " << row.measured_min << " | " << row.predicted_min << " | "
              << 100 * row.ape << " | " << row.basis << "\n";
  std::cout << "v3.1: " << holdout.rows.size() << " predicted, median APE "
            << 100 * holdout.median_ape << "%, worst APE " << 100 * holdout.worst_ape << "%, "
            << holdout.unpredictable << " unpredictable (accelerator not in v1.0-v3.0)\n";

  EXPECT_EQ(holdout.unpredictable, unseen);
  EXPECT_EQ(holdout.rows.size() + unseen, test.size());
  EXPECT_LE(holdout.median_ape, 0.25);
}
