// Ranking configurations: TOPSIS scores of the ok configurations over the default criteria,
// clusters described and ranked by their members' median TOPSIS score, and the Pareto front of time
// to train against device-minutes, each checked against a naive computation in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autotune/ranking.hpp"
#include "autotune/topsis.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;

namespace {

/// A configuration with `ranks` devices of `per_device` samples/s at efficiency `eff`, trained
/// on 1e6 samples.
at::ConfigMetrics config(const std::string& id, int ranks, double per_device, double eff,
                         const std::string& accelerator = "A100") {
  at::ConfigMetrics m;
  m.id = id;
  m.ranks = ranks;
  m.status = rs::Status::ok;
  m.throughput = ranks * per_device;
  m.throughput_per_rank = per_device;
  m.scaling_efficiency = eff;
  m.time_to_train_min = 1e6 / m.throughput / 60;
  m.device_minutes = ranks * m.time_to_train_min;
  m.cost = std::numeric_limits<double>::quiet_NaN();
  m.accelerator = accelerator;
  return m;
}

/// The default criteria: throughput and throughput per device shown, not scored.
const std::vector<at::Criterion> kDefaultWeights = {
    {0, true}, {0, true}, {1, false}, {1, false}, {1, true}};

std::vector<double> row_of(const at::ConfigMetrics& m) {
  return {m.throughput, m.throughput_per_rank, m.time_to_train_min, m.device_minutes,
          m.scaling_efficiency};
}

}  // namespace

TEST(Ranking, ScoresAreTopsisOfTheOkConfigurations) {
  std::vector<at::ConfigMetrics> all = {config("a", 4, 250, 1.0), config("b", 4, 200, 0.8),
                                        config("c", 16, 94, 0.375), config("d", 8, 0, 0)};
  all[3].status = rs::Status::oom;
  const at::Ranking r = at::rank_configurations(all, at::default_criteria(false));
  const std::vector<double> want =
      at::topsis_scores({row_of(all[0]), row_of(all[1]), row_of(all[2])}, kDefaultWeights);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(r.scores[i], want[i]) << i;
  EXPECT_TRUE(std::isnan(r.scores[3]));
  ASSERT_EQ(r.order.size(), 3u);
  // a beats b on every criterion; so a is ranked above b.
  EXPECT_LT(std::ranges::find(r.order, 0u) - r.order.begin(),
            std::ranges::find(r.order, 1u) - r.order.begin());
  // Front: a (10 000 / 60 min on 4 devices) dominates b; c is faster but costs more devices.
  EXPECT_EQ(r.pareto, (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(r.clustering.k, 2);  // three distinct ok rows: k in 2..2
}

TEST(Ranking, ParetoFrontMatchesNaiveDominance) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> ranks(1, 64);
  std::uniform_real_distribution<double> per_device(50, 300), eff(0.3, 1.0);
  std::vector<at::ConfigMetrics> all;
  for (int i = 0; i < 40; ++i)
    all.push_back(config("x" + std::to_string(i), ranks(rng), per_device(rng), eff(rng)));
  const at::Ranking r = at::rank_configurations(all, at::default_criteria(false));
  std::set<std::size_t> naive;
  for (std::size_t p = 0; p < all.size(); ++p) {
    bool dominated = false;
    for (std::size_t q = 0; q < all.size(); ++q) {
      const double tq = all[q].time_to_train_min, tp = all[p].time_to_train_min;
      const double dq = all[q].device_minutes, dp = all[p].device_minutes;
      dominated |= tq <= tp && dq <= dp && (tq < tp || dq < dp);
    }
    if (!dominated) naive.insert(p);
  }
  EXPECT_EQ(std::set<std::size_t>(r.pareto.begin(), r.pareto.end()), naive);
}

// Two kinds of configuration: 12 small, efficient ones (4-8 devices, efficiency ~0.95) and 12
// large ones (64-128 devices, efficiency ~0.5). The clustering separates them; each cluster is
// described by its device range and accelerators, and ranked by the median of its members'
// TOPSIS scores, computed here.
TEST(Ranking, ClustersAreDescribedAndRankedByTheirMembersScores) {
  std::vector<at::ConfigMetrics> all;
  for (int i = 0; i < 12; ++i) {
    all.push_back(
        config("small" + std::to_string(i), 4 + (i % 5), 250 + i, 0.95 + 0.003 * i, "A100"));
    all.push_back(
        config("large" + std::to_string(i), 64 + 5 * i, 120 + i, 0.5 + 0.004 * i, "H100"));
  }
  const at::Ranking r = at::rank_configurations(all, at::default_criteria(false));
  ASSERT_EQ(r.clustering.k, 2);
  ASSERT_EQ(r.clusters.size(), 2u);
  for (const auto& c : r.clusters) {
    ASSERT_EQ(c.members.size(), 12u);
    const bool small = all[c.members.front()].id.starts_with("small");
    for (std::size_t i : c.members) EXPECT_EQ(all[i].id.starts_with("small"), small);
    EXPECT_EQ(c.min_devices, small ? 4 : 64);
    EXPECT_EQ(c.max_devices, small ? 8 : 64 + 55);
    EXPECT_EQ(c.accelerators, std::vector<std::string>{small ? "A100" : "H100"});
    std::vector<double> scores;
    for (std::size_t i : c.members) scores.push_back(r.scores[i]);
    std::sort(scores.begin(), scores.end());
    EXPECT_DOUBLE_EQ(c.score, (scores[5] + scores[6]) / 2);  // 12 members
  }
  EXPECT_GE(r.clusters[0].score, r.clusters[1].score);
}

TEST(Ranking, WeightsAndTheirErrors) {
  auto criteria = at::default_criteria(true);
  at::set_weights(criteria, "time_to_train=2,cost=0.5");
  EXPECT_DOUBLE_EQ(criteria[2].weight, 2.0);
  EXPECT_DOUBLE_EQ(criteria[5].weight, 0.5);
  EXPECT_DOUBLE_EQ(criteria[0].weight, 0.0);  // throughput: shown, not scored by default
  EXPECT_DOUBLE_EQ(criteria[3].weight, 1.0);
  for (const char* bad : {"speed=1", "throughput=-1", "throughput", "throughput=x", "cost=1e999"}) {
    try {
      at::set_weights(criteria, bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("throughput_per_device"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(at::set_weights(criteria, "cost=1,cost=2"), std::invalid_argument);
  EXPECT_THROW(at::set_weights(criteria,
                               "throughput=0,throughput_per_device=0,time_to_train=0,"
                               "device_minutes=0,scaling_efficiency=0,cost=0"),
               std::invalid_argument);
}

TEST(Ranking, RefusesMissingValuesAndEmptySets) {
  std::vector<at::ConfigMetrics> all = {config("a", 4, 250, 1.0)};
  EXPECT_THROW(at::rank_configurations(all, at::default_criteria(true)), std::invalid_argument);
  all[0].status = rs::Status::error;
  EXPECT_THROW(at::rank_configurations(all, at::default_criteria(false)), std::invalid_argument);
}
