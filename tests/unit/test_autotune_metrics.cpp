// Per-configuration metrics on a hand-built result set: throughput, scaling efficiency against
// the series baseline (E(p) = X(p)·p0 / (p·X(p0)), DESIGN.md) and phase shares, each checked
// against a value computed here from the definition.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autotune/metrics.hpp"
#include "autotune/recommend.hpp"
#include "autotune/series_fits.hpp"
#include "tests/unit/test_autotune_fixtures.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;
using at::PhaseClass;
using at::testing::make_failed_config;
using at::testing::make_ok_config;
using scaletune::results::test::naive_median;
using scaletune::results::test::naive_quantile;

namespace {

const std::vector<std::string> kPhases = {"fwd", "bwd", "wait_allreduce", "allreduce", "optimizer"};
const std::vector<PhaseClass> kPhaseClasses = {PhaseClass::compute, PhaseClass::compute,
                                               PhaseClass::wait, PhaseClass::communication,
                                               PhaseClass::compute};

/// Phase times that vary with rank, iteration and rank count: compute shrinks with ranks,
/// communication grows, rank r waits longer the faster it is.
at::testing::PhaseFormula formula(int ranks) {
  return [ranks](int r, int i, int p) {
    const double base_s[] = {0.030, 0.060, 0.004, 0.010, 0.005};
    const double by_ranks = p == 3 ? 1.0 + 0.2 * ranks : 4.0 / (ranks + 3.0);
    const double jitter = 1.0 + 0.02 * ((3 * i + r) % 5);
    return base_s[p] * by_ranks * jitter * (p == 2 ? 1.0 + r : 1.0);
  };
}

rs::ConfigResult ok_config(const std::string& id, int ranks, int global_batch) {
  return make_ok_config(id, ranks, global_batch, 7, kPhases, formula(ranks), 0.003);
}

rs::ResultSet sample_set() {
  rs::ResultSet set;
  set.path = "results/sample.h5";
  set.configs = {ok_config("a-r1", 1, 256),
                 ok_config("a-r2", 2, 256),
                 ok_config("a-r4", 4, 256),
                 make_failed_config("a-r8", 8, 256, rs::Status::oom, "out of memory on rank 5"),
                 ok_config("b-r2", 2, 512),
                 ok_config("b-r4", 4, 512),
                 ok_config("c-r4", 4, 256)};
  set.configs.back().text_attrs["sharding"] = "row-wise";
  for (std::size_t k = 0; k < set.configs.size(); ++k) {
    set.configs[k].number_attrs["image_size"] = 224;
    // A measurement, not a setting: it differs between configurations of one series.
    set.configs[k].harness_overhead_fraction = 0.001 * static_cast<double>(k);
  }
  return set;
}

/// share_c = mean_i ( mean_r sum_{p in c} t[r,i,p] ) / T[i], by a plain loop.
double naive_share(const rs::ConfigResult& c, PhaseClass cls) {
  double sum = 0.0;
  for (std::size_t i = 0; i < c.step_time.size(); ++i) {
    double class_s = 0.0;
    for (int r = 0; r < c.ranks; ++r)
      for (std::size_t p = 0; p < kPhases.size(); ++p)
        if (kPhaseClasses[p] == cls) class_s += c.phase_time(static_cast<std::size_t>(r), i, p);
    sum += class_s / c.ranks / c.step_time[i];
  }
  return sum / static_cast<double>(c.step_time.size());
}

double throughput_of(const rs::ConfigResult& c) {
  return c.global_batch / naive_median(c.step_time);
}

}  // namespace

TEST(AutotuneMetrics, ClassifiesPhasesByName) {
  EXPECT_EQ(at::classify_phase("wait"), PhaseClass::wait);
  EXPECT_EQ(at::classify_phase("wait_allreduce"), PhaseClass::wait);
  for (const char* name : {"allreduce", "allreduce_bucket3", "alltoall_fwd", "allgather",
                           "reduce_scatter", "broadcast_params", "sendrecv"})
    EXPECT_EQ(at::classify_phase(name), PhaseClass::communication) << name;
  for (const char* name : {"fwd", "bwd", "emb_fwd", "optimizer", "layernorm", "await"})
    EXPECT_EQ(at::classify_phase(name), PhaseClass::compute) << name;
}

TEST(AutotuneMetrics, ThroughputAndStepTimesOfEachConfiguration) {
  const rs::ResultSet set = sample_set();
  const auto metrics = at::compute_metrics(set);
  ASSERT_EQ(metrics.size(), set.configs.size());
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    const rs::ConfigResult& c = set.configs[k];
    const at::ConfigMetrics& m = metrics[k];
    EXPECT_EQ(m.id, c.id);
    EXPECT_EQ(m.ranks, c.ranks);
    EXPECT_EQ(m.global_batch, c.global_batch);
    if (c.status != rs::Status::ok) continue;
    EXPECT_DOUBLE_EQ(m.throughput, throughput_of(c)) << c.id;
    EXPECT_DOUBLE_EQ(m.throughput_per_rank, throughput_of(c) / c.ranks) << c.id;
    EXPECT_DOUBLE_EQ(m.step_time_median_s, naive_median(c.step_time)) << c.id;
    EXPECT_DOUBLE_EQ(m.step_time_p95_s, naive_quantile(c.step_time, 0.95)) << c.id;
  }
  EXPECT_EQ(metrics[0].per_rank_batch, "256");
  EXPECT_EQ(metrics[2].per_rank_batch, "64");
}

TEST(AutotuneMetrics, ScalingEfficiencyAgainstTheSeriesBaseline) {
  const rs::ResultSet set = sample_set();
  const auto metrics = at::compute_metrics(set);
  const auto x = [&](int k) { return throughput_of(set.configs[static_cast<std::size_t>(k)]); };
  // Series a (gb 256): baseline a-r1. Series b (gb 512): baseline b-r2. c-r4 differs from a in
  // its sharding attribute, so it is its own baseline.
  EXPECT_DOUBLE_EQ(metrics[0].scaling_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(metrics[1].scaling_efficiency, x(1) * 1 / (2 * x(0)));
  EXPECT_DOUBLE_EQ(metrics[2].scaling_efficiency, x(2) * 1 / (4 * x(0)));
  EXPECT_DOUBLE_EQ(metrics[4].scaling_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(metrics[5].scaling_efficiency, x(5) * 2 / (4 * x(4)));
  EXPECT_DOUBLE_EQ(metrics[6].scaling_efficiency, 1.0);
  EXPECT_LT(metrics[2].scaling_efficiency, metrics[1].scaling_efficiency);  // sub-linear
  EXPECT_EQ(metrics[2].baseline_id, "a-r1");
  EXPECT_EQ(metrics[5].baseline_id, "b-r2");
  EXPECT_EQ(metrics[6].baseline_id, "c-r4");
  EXPECT_EQ(metrics[0].series, "resnet50, global batch 256, fp32, image_size=224");
  EXPECT_EQ(metrics[6].series,
            "resnet50, global batch 256, fp32, image_size=224, sharding=row-wise");
  EXPECT_EQ(metrics[0].series, metrics[2].series);
  EXPECT_NE(metrics[0].series, metrics[4].series);
  EXPECT_NE(metrics[0].series, metrics[6].series);
}

// A weight list applies to one rank count. Its configuration divides the same global batch as
// the even ones, so it belongs to their series and is measured against the even r1 baseline.
// Phase times give step times of 96 ms on 1 rank (1,000 samples/s of global batch 96) and
// 40 ms on 3 ranks (2,400 samples/s) for the weighted split, 32 ms (3,000 samples/s) for
// the even one: E = 2,400·1 / (3·1,000) = 0.8 and 3,000·1 / (3·1,000) = 1.
TEST(AutotuneMetrics, WeightedSplitIsMeasuredAgainstTheFewestRanksOfItsGlobalBatch) {
  const auto step_of = [](double step_s) {
    return [step_s](int, int, int p) { return p == 0 ? 0.75 * step_s : 0.25 * step_s; };
  };
  rs::ResultSet set;
  set.configs = {
      make_ok_config("r1-even", 1, 96, 3, {"fwd", "allreduce"}, step_of(0.096), 0.0),
      make_ok_config("r3-even", 3, 96, 3, {"fwd", "allreduce"}, step_of(0.032), 0.0),
      make_ok_config("r3-weighted", 3, 96, 3, {"fwd", "allreduce"}, step_of(0.040), 0.0)};
  set.configs[2].batch_split = "[0.5, 0.25, 0.25]";
  set.configs[2].per_rank_batch = {48, 24, 24};
  const auto metrics = at::compute_metrics(set);
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[2].series, metrics[0].series);
  EXPECT_EQ(metrics[2].series, "resnet50, global batch 96, fp32");
  EXPECT_EQ(metrics[2].batch_split, "[0.5, 0.25, 0.25]");
  EXPECT_EQ(metrics[2].per_rank_batch, "48+24+24");
  EXPECT_EQ(metrics[2].baseline_id, "r1-even");
  EXPECT_NEAR(metrics[2].scaling_efficiency, 0.8, 1e-12);
  EXPECT_NEAR(metrics[1].scaling_efficiency, 1.0, 1e-12);
  // The efficiency floor can now reject the weighted split.
  EXPECT_EQ(at::recommend(metrics, at::Objective::efficiency_floor, 0.9).id, "r3-even");
  // Without the even r3 the weighted one (0.8) is below the floor: the baseline is chosen.
  set.configs.erase(set.configs.begin() + 1);
  EXPECT_EQ(at::recommend(at::compute_metrics(set), at::Objective::efficiency_floor, 0.9).id,
            "r1-even");
}

// Several splits at one rank count (a heterogeneous sweep): the fastest is the baseline, so the
// others' efficiency is their throughput over its (3,000 vs 2,400 samples/s: 0.8), never above 1.
TEST(AutotuneMetrics, FastestOfTheFewestRanksIsTheBaseline) {
  const auto step_of = [](double step_s) {
    return [step_s](int, int, int p) { return p == 0 ? 0.75 * step_s : 0.25 * step_s; };
  };
  rs::ResultSet set;
  set.configs = {make_ok_config("r3-weighted", 3, 96, 3, {"fwd", "allreduce"}, step_of(0.040), 0.0),
                 make_ok_config("r3-even", 3, 96, 3, {"fwd", "allreduce"}, step_of(0.032), 0.0)};
  set.configs[0].batch_split = "[0.5, 0.25, 0.25]";
  set.configs[0].per_rank_batch = {48, 24, 24};
  const auto metrics = at::compute_metrics(set);
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].baseline_id, "r3-even");
  EXPECT_NEAR(metrics[0].scaling_efficiency, 0.8, 1e-12);
  EXPECT_NEAR(metrics[1].scaling_efficiency, 1.0, 1e-12);
}

// Configurations that differ only in split form one series; its fit takes every point, two at
// 3 ranks. Amdahl through (1, 1,000), (3, 2,400), (3, 3,000): least squares meets the first
// point and the mean 2,700 at p = 3 exactly (two free parameters, two rank counts), so
// X1 = 1,000 samples/s and 3·1,000 / (1 + 2s) = 2,700 gives s = 1/18.
TEST(AutotuneMetrics, SeriesFitsTakeSeveralSplitsAtOneRankCount) {
  std::vector<at::ConfigMetrics> metrics(3);
  const int ranks[] = {1, 3, 3};
  const double throughput[] = {1000.0, 2400.0, 3000.0};
  const char* split[] = {"even", "[0.5, 0.25, 0.25]", "even"};
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    metrics[k].id = "c" + std::to_string(k);
    metrics[k].series = "resnet50, global batch 96, fp32";
    metrics[k].batch_split = split[k];
    metrics[k].ranks = ranks[k];
    metrics[k].throughput = throughput[k];
  }
  const auto fits = at::fit_series(metrics);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].max_ranks, 3);
  const at::FitAttempt& amdahl = fits[0].attempts[0];
  ASSERT_TRUE(amdahl.fit.has_value()) << amdahl.reason;
  EXPECT_EQ(amdahl.fit->points, 3);
  // Relative least squares: X(1) = 1000 exactly, and X(3) minimises (X/2400 - 1)^2 +
  // (X/3000 - 1)^2, so X(3) = (1/2400 + 1/3000) / (1/2400^2 + 1/3000^2) and 3000 / (1 + 2s) = X(3).
  const double x3 = (1 / 2400.0 + 1 / 3000.0) / (1 / (2400.0 * 2400.0) + 1 / (3000.0 * 3000.0));
  EXPECT_NEAR(amdahl.fit->param("X1"), 1000.0, 1e-6);
  EXPECT_NEAR(amdahl.fit->param("s"), (3000.0 / x3 - 1) / 2, 1e-9);
  EXPECT_NEAR(amdahl.fit->rmse,
              std::sqrt(((x3 - 2400) * (x3 - 2400) + (x3 - 3000) * (x3 - 3000)) / 3.0), 1e-6);
}

TEST(AutotuneMetrics, PhaseSharesMatchANaiveLoopAndAddUpToOne) {
  const rs::ResultSet set = sample_set();
  const auto metrics = at::compute_metrics(set);
  for (std::size_t k : {0u, 1u, 2u, 5u}) {
    const rs::ConfigResult& c = set.configs[k];
    const at::PhaseShares& s = metrics[k].shares;
    EXPECT_NEAR(s.compute, naive_share(c, PhaseClass::compute), 1e-12) << c.id;
    EXPECT_NEAR(s.communication, naive_share(c, PhaseClass::communication), 1e-12) << c.id;
    EXPECT_NEAR(s.wait, naive_share(c, PhaseClass::wait), 1e-12) << c.id;
    EXPECT_NEAR(s.compute + s.communication + s.wait + s.other, 1.0, 1e-12) << c.id;
    EXPECT_GT(s.other, 0.0) << c.id;  // every step has a 3 ms gap no phase covers
  }
  EXPECT_GT(metrics[2].shares.communication, metrics[0].shares.communication);
}

TEST(AutotuneMetrics, ConfigurationsThatDidNotFinishHaveNoNumbers) {
  const auto metrics = at::compute_metrics(sample_set());
  const at::ConfigMetrics& oom = metrics[3];
  EXPECT_EQ(oom.status, rs::Status::oom);
  EXPECT_EQ(oom.error, "out of memory on rank 5");
  EXPECT_TRUE(std::isnan(oom.throughput));
  EXPECT_TRUE(std::isnan(oom.scaling_efficiency));
  EXPECT_TRUE(std::isnan(oom.shares.compute));
  EXPECT_TRUE(oom.baseline_id.empty());
  EXPECT_EQ(oom.series, metrics[0].series);
}

TEST(AutotuneMetrics, UnevenPerRankBatchIsListed) {
  rs::ResultSet set;
  set.configs = {ok_config("u-r3", 3, 192)};
  set.configs[0].per_rank_batch = {96, 64, 32};
  EXPECT_EQ(at::compute_metrics(set)[0].per_rank_batch, "96+64+32");
  set.configs[0] = ok_config("u-r9", 9, 90);
  set.configs[0].per_rank_batch = {18, 9, 9, 9, 9, 9, 9, 9, 9};
  EXPECT_EQ(at::compute_metrics(set)[0].per_rank_batch, "9..18");
}

TEST(AutotuneMetrics, InconsistentDataIsRejectedNamingFileAndConfiguration) {
  rs::ResultSet set = sample_set();
  set.configs[1].rank_phase_time.pop_back();
  try {
    at::compute_metrics(set);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("results/sample.h5: /configs/a-r2/rank_phase_time"),
              std::string::npos)
        << e.what();
  }
  set = sample_set();
  set.configs[2].throughput = 0.0;
  EXPECT_THROW(at::compute_metrics(set), std::invalid_argument);
  EXPECT_THROW(at::scaling_efficiency(100.0, 2, 0.0, 1), std::invalid_argument);
}

// The collective benchmark stores one configuration per rank count (workload "collectives")
// with no training throughput: metrics, baselines, fits and the recommendation leave them out.
TEST(AutotuneMetrics, CollectiveBenchmarkConfigurationsAreLeftOut) {
  const rs::ResultSet plain = sample_set();
  rs::ResultSet mixed = plain;
  rs::ConfigResult bench = at::testing::even_config("collectives-r1", 1, 1);
  bench.workload = std::string(at::kCollectivesWorkload);  // ok, throughput 0: not trainable
  rs::ConfigResult failed = make_failed_config("collectives-r8", 8, 8, rs::Status::error, "x");
  failed.workload = bench.workload;
  mixed.configs.insert(mixed.configs.begin(), bench);
  mixed.configs.push_back(failed);
  EXPECT_FALSE(at::is_training_config(bench));
  EXPECT_TRUE(at::is_training_config(plain.configs[0]));

  const auto want = at::compute_metrics(plain);
  const auto got = at::compute_metrics(mixed);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].id, want[k].id);
    EXPECT_EQ(got[k].baseline_id, want[k].baseline_id) << got[k].id;
    EXPECT_EQ(std::isnan(got[k].throughput), std::isnan(want[k].throughput)) << got[k].id;
    if (!std::isnan(want[k].throughput)) {
      EXPECT_DOUBLE_EQ(got[k].throughput, want[k].throughput) << got[k].id;
    }
  }
  EXPECT_EQ(at::fit_series(got).size(), at::fit_series(want).size());
  EXPECT_EQ(at::recommend(got, at::Objective::throughput).id,
            at::recommend(want, at::Objective::throughput).id);

  rs::ResultSet only_bench;
  only_bench.configs = {bench, failed};
  EXPECT_TRUE(at::compute_metrics(only_bench).empty());
}
