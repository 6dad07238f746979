// The software speed-up per MLPerf round: exact levels and forecasts on worked examples, the
// least-squares levels on real data against a naive reference (alternating projections, and by
// hand for one accelerator), and the honest check on real data: fitted on MLPerf Training
// ResNet-50 rounds v1.0-v3.0, predicting v3.1 within a median 10% with the factor and better
// than without it, with no v3.1 number read by the fit.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "autotune/mlperf_import.hpp"
#include "autotune/ttt_check.hpp"
#include "autotune/ttt_round_factors.hpp"

namespace at = scaletune::autotune;

namespace {

at::TrainingRun run(const std::string& accelerator, const std::string& round, double devices,
                    double throughput) {
  return {.id = accelerator + "-" + round + "-" + std::to_string(static_cast<int>(devices)),
          .accelerator = accelerator,
          .stack = "mxnet",
          .round = round,
          .devices = devices,
          .global_batch = 1000.0 * devices,
          .epochs = 35.0,
          .time_to_train_min = 10.0,
          .throughput = throughput};
}

const at::RoundFactor& factor_of(const at::RoundFactors& f, const std::string& round) {
  for (const auto& r : f.rounds)
    if (r.round == round) return r;
  throw std::out_of_range("no round " + round);
}

const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";

std::vector<at::TrainingRun> mlperf_runs() {
  return at::training_runs(at::read_mlperf_csv(kCsv).configs);
}

std::vector<at::TrainingRun> before_v31(const std::vector<at::TrainingRun>& runs) {
  std::vector<at::TrainingRun> earlier;
  for (const auto& r : runs)
    if (r.round != "v3.1") earlier.push_back(r);
  return earlier;
}

/// Naive reference for ln X = α_configuration + β_round: Gauss-Seidel alternating projections
/// (α = mean of ln X − β over a configuration's runs, β = mean of ln X − α over a round's runs)
/// over the configurations submitted in more than one round, then β relative to the latest.
std::map<std::string, double> alternating_projection_levels(
    const std::vector<at::TrainingRun>& runs) {
  using Key = std::tuple<std::string, std::string, double>;
  std::map<Key, std::vector<const at::TrainingRun*>> cells;
  for (const auto& r : runs) cells[{r.accelerator, r.stack, r.devices}].push_back(&r);
  std::erase_if(cells, [](const auto& cell) {
    std::set<std::string> rounds;
    for (const auto* r : cell.second) rounds.insert(r->round);
    return rounds.size() < 2;
  });
  std::map<std::string, double> beta;
  std::map<Key, double> alpha;
  for (const auto& [key, cell] : cells)
    for (const auto* r : cell) beta[r->round] = 0.0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    for (const auto& [key, cell] : cells) {
      double sum = 0;
      for (const auto* r : cell) sum += std::log(r->throughput) - beta[r->round];
      alpha[key] = sum / static_cast<double>(cell.size());
    }
    std::map<std::string, std::pair<double, int>> sums;
    for (const auto& [key, cell] : cells)
      for (const auto* r : cell) {
        sums[r->round].first += std::log(r->throughput) - alpha[key];
        ++sums[r->round].second;
      }
    for (const auto& [round, sum] : sums) beta[round] = sum.first / sum.second;
  }
  const double latest = beta.rbegin()->second;
  for (auto& [round, b] : beta) b -= latest;
  return beta;
}

}  // namespace

// Configuration A/8 runs 1000 samples/s in v1.0 and 1200 in v2.0; B/4 runs 500 in v1.1 and 550
// in v2.0; C/2 was submitted once (not fitted). Levels relative to v2.0 (the anchor): v1.0
// 1000/1200, v1.1 500/550. Positions v1.0 0, v1.1 1, v2.0 2, v2.1 3; step per round
// (1 / (1000/1200))^(1/2) = sqrt(1.2); factor to v2.1: v2.0 sqrt(1.2), v1.0 sqrt(1.2) x 1.2,
// v1.1 sqrt(1.2) x 1.1.
TEST(AutotuneTttRoundFactors, WorkedExample) {
  const std::vector<at::TrainingRun> runs = {run("A", "v1.0", 8, 1000), run("A", "v2.0", 8, 1200),
                                             run("B", "v1.1", 4, 500), run("B", "v2.0", 4, 550),
                                             run("C", "v1.1", 2, 300)};
  const at::RoundFactors f = at::fit_round_factors(runs, "v2.1");
  EXPECT_EQ(f.target_round, "v2.1");
  EXPECT_EQ(f.anchor_round, "v2.0");
  EXPECT_EQ(f.configurations, 2);
  ASSERT_EQ(f.rounds.size(), 3u);
  EXPECT_NEAR(f.step, std::sqrt(1.2), 1e-12);
  EXPECT_NEAR(factor_of(f, "v1.0").level, 1000.0 / 1200.0, 1e-12);
  EXPECT_NEAR(factor_of(f, "v1.1").level, 500.0 / 550.0, 1e-12);
  EXPECT_NEAR(factor_of(f, "v2.0").level, 1.0, 1e-12);
  EXPECT_EQ(factor_of(f, "v1.1").shared_runs, 1);
  EXPECT_EQ(factor_of(f, "v2.0").shared_runs, 2);
  EXPECT_NEAR(factor_of(f, "v2.0").to_target, std::sqrt(1.2), 1e-12);
  EXPECT_NEAR(factor_of(f, "v1.0").to_target, std::sqrt(1.2) * 1.2, 1e-12);
  EXPECT_NEAR(factor_of(f, "v1.1").to_target, std::sqrt(1.2) * 1.1, 1e-12);

  const auto scaled = at::at_target_software(runs, f);
  EXPECT_NEAR(scaled[0].throughput, 1000 * std::sqrt(1.2) * 1.2, 1e-9);
  EXPECT_NEAR(scaled[4].throughput, 300 * std::sqrt(1.2) * 1.1, 1e-9);
  EXPECT_EQ(scaled[0].time_to_train_min, runs[0].time_to_train_min);
  EXPECT_EQ(scaled[0].epochs, runs[0].epochs);
}

// D/8 links v1.0 and v1.1 only, A/8 links v2.0 (1000) and v3.0 (1100): v1.0 and v1.1 have no
// level relative to the anchor v3.0 and are brought forward by the step alone: step = 1.1 per
// round, positions v1.0 0 ... v3.1 4, so v1.0 x 1.1^4, v1.1 x 1.1^3, v2.0 x 1.1 / (1/1.1).
TEST(AutotuneTttRoundFactors, RoundsNotLinkedToTheAnchorGetTheStepAlone) {
  const std::vector<at::TrainingRun> runs = {run("D", "v1.0", 8, 700), run("D", "v1.1", 8, 900),
                                             run("A", "v2.0", 8, 1000), run("A", "v3.0", 8, 1100)};
  const at::RoundFactors f = at::fit_round_factors(runs, "v3.1");
  EXPECT_EQ(f.anchor_round, "v3.0");
  EXPECT_EQ(f.configurations, 1);
  EXPECT_NEAR(f.step, 1.1, 1e-12);
  EXPECT_TRUE(std::isnan(factor_of(f, "v1.0").level));
  EXPECT_EQ(factor_of(f, "v1.0").shared_runs, 0);
  EXPECT_NEAR(factor_of(f, "v1.0").to_target, std::pow(1.1, 4), 1e-12);
  EXPECT_NEAR(factor_of(f, "v1.1").to_target, std::pow(1.1, 3), 1e-12);
  EXPECT_NEAR(factor_of(f, "v2.0").to_target, 1.1 * 1.1, 1e-12);
  EXPECT_NEAR(factor_of(f, "v3.0").to_target, 1.1, 1e-12);
}

TEST(AutotuneTttRoundFactors, NoSharedConfigurationGivesUnitFactors) {
  const std::vector<at::TrainingRun> runs = {run("A", "v1.0", 8, 1000), run("B", "v2.0", 8, 2000)};
  const at::RoundFactors f = at::fit_round_factors(runs, "v2.1");
  EXPECT_EQ(f.anchor_round, "");
  EXPECT_EQ(f.step, 1.0);
  EXPECT_EQ(f.configurations, 0);
  for (const auto& r : f.rounds) EXPECT_EQ(r.to_target, 1.0) << r.round;
}

TEST(AutotuneTttRoundFactors, RejectsTheTargetRoundAndUnknownRounds) {
  const std::vector<at::TrainingRun> runs = {run("A", "v1.0", 8, 1000), run("A", "v2.0", 8, 1100)};
  EXPECT_THROW(at::fit_round_factors(runs, "v2.0"), std::invalid_argument);
  EXPECT_THROW(at::fit_round_factors(runs, "v1.1"), std::invalid_argument);
  EXPECT_THROW(at::fit_round_factors({}, "v2.1"), std::invalid_argument);
  const at::RoundFactors f = at::fit_round_factors(runs, "v2.1");
  const std::vector<at::TrainingRun> other = {run("A", "v1.1", 8, 1000)};
  try {
    at::at_target_software(other, f);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'A-v1.1-8'"), std::string::npos) << e.what();
  }
}

// Real data, one accelerator by hand: the H100 SXM of rounds v2.1 and v3.0 shares one
// configuration, mxnet on 8 devices, so its v2.1 level is the ratio of the geometric means of
// that configuration's throughputs in v2.1 and v3.0, and v3.1 lies one round after v3.0.
TEST(AutotuneTttRoundFactors, OneAcceleratorByHand) {
  std::vector<at::TrainingRun> h100;
  for (const auto& r : before_v31(mlperf_runs()))
    if (r.accelerator == "H100-SXM-80GB") h100.push_back(r);
  std::map<std::string, std::pair<double, int>> log_sum;  // mxnet on 8 devices, per round
  for (const auto& r : h100)
    if (r.stack == "mxnet" && r.devices == 8) {
      log_sum[r.round].first += std::log(r.throughput);
      ++log_sum[r.round].second;
    }
  ASSERT_EQ(log_sum.size(), 2u);
  const double v21 = log_sum["v2.1"].first / log_sum["v2.1"].second;
  const double v30 = log_sum["v3.0"].first / log_sum["v3.0"].second;
  const double level = std::exp(v21 - v30);

  const at::RoundFactors f = at::fit_round_factors(h100, "v3.1");
  std::cout << "H100-SXM-80GB: v2.1 level " << level << " (" << log_sum["v2.1"].second << " and "
            << log_sum["v3.0"].second << " runs)\n";
  EXPECT_EQ(f.configurations, 1);
  EXPECT_EQ(f.anchor_round, "v3.0");
  EXPECT_NEAR(factor_of(f, "v2.1").level, level, 1e-12);
  EXPECT_NEAR(f.step, 1.0 / level, 1e-12);
  EXPECT_NEAR(factor_of(f, "v3.0").to_target, 1.0 / level, 1e-12);
  EXPECT_NEAR(factor_of(f, "v2.1").to_target, 1.0 / (level * level), 1e-12);
  EXPECT_GT(f.step, 1.0);  // the H100 got faster from v2.1 to v3.0
}

// Real data, all accelerators: the QR least squares against alternating projections.
TEST(AutotuneTttRoundFactors, LevelsMatchAlternatingProjections) {
  const auto earlier = before_v31(mlperf_runs());
  const std::map<std::string, double> beta = alternating_projection_levels(earlier);
  const at::RoundFactors f = at::fit_round_factors(earlier, "v3.1");
  ASSERT_EQ(f.rounds.size(), 5u);
  ASSERT_EQ(beta.size(), 5u);
  for (const auto& r : f.rounds) {
    std::cout << r.round << ": level " << std::setprecision(5) << r.level << ", factor to v3.1 "
              << r.to_target << ", " << r.shared_runs << " shared runs\n";
    EXPECT_NEAR(r.level, std::exp(beta.at(r.round)), 1e-9) << r.round;
  }
  // Positions v1.0 0 ... v3.0 4, v3.1 5: step = (level v3.0 / level v1.0)^(1/4).
  const double step = std::exp((beta.at("v3.0") - beta.at("v1.0")) / 4.0);
  std::cout << "step per round " << f.step << " from " << f.configurations << " configurations\n";
  EXPECT_NEAR(f.step, step, 1e-9);
  for (const auto& r : f.rounds)
    EXPECT_NEAR(r.to_target, step / std::exp(beta.at(r.round)), 1e-9) << r.round;
}

// The check the issue asks for: fit on v1.0-v3.0, predict v3.1, without and with the factor.
TEST(AutotuneTttRoundFactors, PredictsRoundV31WithinTenPercent) {
  const auto check = at::check_latest_round(mlperf_runs());
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(check->round, "v3.1");
  const auto& without = check->without_factor;
  const auto& with = check->with_factor;
  ASSERT_EQ(with.rows.size(), without.rows.size());
  std::cout << std::fixed << std::setprecision(2)
            << "id | measured min | without: predicted min, APE % | with: predicted min, APE %\n";
  for (std::size_t k = 0; k < with.rows.size(); ++k) {
    EXPECT_EQ(with.rows[k].id, without.rows[k].id);
    std::cout << with.rows[k].id << " | " << with.rows[k].measured_min << " | "
              << without.rows[k].predicted_min << ", " << 100 * without.rows[k].ape << " | "
              << with.rows[k].predicted_min << ", " << 100 * with.rows[k].ape << "\n";
  }
  std::cout << "v3.1, " << with.rows.size() << " rows: without the factor median "
            << 100 * without.median_ape << "%, worst " << 100 * without.worst_ape
            << "%; with the factor median " << 100 * with.median_ape << "%, worst "
            << 100 * with.worst_ape << "%\n";
  EXPECT_EQ(with.unpredictable, without.unpredictable);
  EXPECT_LT(with.median_ape, 0.10);
  EXPECT_LT(with.median_ape, without.median_ape);
}

// The v3.1 runs' numbers are never read by the factors: changing them changes the measured
// times only, not the factors or the predictions.
TEST(AutotuneTttRoundFactors, FactorsUseNoTestRoundData) {
  const auto runs = mlperf_runs();
  auto changed = runs;
  for (auto& r : changed)
    if (r.round == "v3.1") {
      r.time_to_train_min *= 3.0;
      r.throughput *= 0.5;
      r.epochs += 10.0;
    }
  const auto a = at::check_latest_round(runs);
  const auto b = at::check_latest_round(changed);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->factors.step, b->factors.step);
  ASSERT_EQ(a->factors.rounds.size(), b->factors.rounds.size());
  for (std::size_t k = 0; k < a->factors.rounds.size(); ++k) {
    EXPECT_EQ(a->factors.rounds[k].level, b->factors.rounds[k].level);
    EXPECT_EQ(a->factors.rounds[k].to_target, b->factors.rounds[k].to_target);
  }
  ASSERT_EQ(a->with_factor.rows.size(), b->with_factor.rows.size());
  for (std::size_t k = 0; k < a->with_factor.rows.size(); ++k) {
    EXPECT_EQ(a->with_factor.rows[k].predicted_min, b->with_factor.rows[k].predicted_min);
    EXPECT_EQ(b->with_factor.rows[k].measured_min, 3.0 * a->with_factor.rows[k].measured_min);
  }
}

// Rolling origin: each round from v2.0 on predicted from the rounds before it. The factor is
// not better every round (v3.0: 10.6% against 10.3%), but better on the mean of the medians.
TEST(AutotuneTttRoundFactors, RollingOriginBacktest) {
  const auto runs = mlperf_runs();
  double without = 0, with = 0;
  const std::vector<std::string> targets = {"v2.0", "v2.1", "v3.0", "v3.1"};
  for (const std::string& target : targets) {
    std::vector<at::TrainingRun> upto;
    for (const auto& r : runs)
      if (r.round <= target) upto.push_back(r);
    const auto check = at::check_latest_round(upto);
    ASSERT_TRUE(check.has_value()) << target;
    ASSERT_EQ(check->round, target);
    std::cout << target << ": median error without " << 100 * check->without_factor.median_ape
              << "%, with " << 100 * check->with_factor.median_ape << "% (step "
              << check->factors.step << " per round)\n";
    without += check->without_factor.median_ape / static_cast<double>(targets.size());
    with += check->with_factor.median_ape / static_cast<double>(targets.size());
  }
  std::cout << "mean of the medians: without " << 100 * without << "%, with " << 100 * with
            << "%\n";
  EXPECT_LT(with, without);
}
