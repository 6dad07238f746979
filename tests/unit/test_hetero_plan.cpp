// Heterogeneous batch/state planner: micro-batch time interpolation, proportional splits and
// memory-proportional shard fractions against hand-computed values; the planner against a
// brute-force enumeration of every (b_i, m_i) with an explicitly constructed shard assignment on
// random profiles; the textbook case of a fast rank with little memory; plans that cannot fit.

#include "harness/core/hetero_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace core = scaletune::core;

namespace {

constexpr double kGB = 1e9;

core::RankProfile profile(std::vector<int> sizes, std::vector<double> times, double capacity_gb) {
  return core::RankProfile{
      std::move(sizes), std::move(times), static_cast<std::int64_t>(capacity_gb * kGB), {}};
}

core::MemoryModel model_gb(double state, double replicated, double activation) {
  return core::MemoryModel{state * kGB, replicated * kGB, activation * kGB};
}

/// Naive piecewise-linear time: scan for the segment containing m, else the end segments; one
/// measured point: time proportional to m.
double reference_time_s(const core::RankProfile& p, int m) {
  const auto& x = p.micro_batches;
  const auto& y = p.time_s;
  if (x.size() == 1) return y[0] * m / x[0];
  std::size_t lo = 0;
  for (std::size_t k = 0; k + 1 < x.size(); ++k)
    if (x[k] <= m) lo = k;
  const std::size_t hi = lo + 1;
  return y[lo] + (y[hi] - y[lo]) * (m - x[lo]) / (x[hi] - x[lo]);
}

double bytes_of(const core::MemoryModel& model, double fraction, int micro_batch) {
  return model.state_bytes * fraction + model.replicated_bytes +
         model.activation_bytes_per_sample * micro_batch;
}

/// g micro-batches of m samples: g t(m) + (g - 1) accumulation_overhead_s.
double reference_step_s(const core::RankProfile& p, int m, int g) {
  return g * reference_time_s(p, m) + (g - 1) * p.accumulation_overhead_s;
}

struct BruteForce {
  double step_time_s = std::numeric_limits<double>::infinity();
  bool fits = false;
};

/// Shard fractions filled rank by rank up to each rank's room; true when they reach 1 and every
/// rank's memory (by the model's formula) is within its capacity.
bool state_fits(const std::vector<core::RankProfile>& profiles, const core::MemoryModel& model,
                const std::vector<int>& micro) {
  double remaining = 1.0;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const double capacity = static_cast<double>(profiles[i].capacity_bytes);
    const double room = (capacity - bytes_of(model, 0.0, micro[i])) / model.state_bytes;
    if (room < 0) return false;
    const double fraction = std::min(room, remaining);
    remaining -= fraction;
    if (bytes_of(model, fraction, micro[i]) > capacity * (1 + 1e-12)) return false;
  }
  return remaining <= 1e-12;  // 1 - 0.7 - 0.3 leaves 5.6e-17
}

/// Every split of B into b_i >= 1 and every micro-batch m_i dividing b_i (with b_i / m_i =
/// accumulation unless it is 0).
BruteForce brute_force(const std::vector<core::RankProfile>& profiles,
                       const core::MemoryModel& model, int global_batch, int accumulation = 0) {
  BruteForce best;
  const std::size_t n = profiles.size();
  std::vector<int> micro(n);
  std::function<void(std::size_t, int, double)> visit = [&](std::size_t i, int left, double t) {
    if (i == n) {
      if (left == 0 && t < best.step_time_s && state_fits(profiles, model, micro)) {
        best.step_time_s = t;
        best.fits = true;
      }
      return;
    }
    for (int b = 1; b <= left; ++b)
      for (int m = 1; m <= b; ++m) {
        if (b % m != 0 || (accumulation > 0 && b / m != accumulation)) continue;
        micro[i] = m;
        visit(i + 1, left - b, std::max(t, reference_step_s(profiles[i], m, b / m)));
      }
  };
  visit(0, global_batch, 0.0);
  return best;
}

/// The plan's own consistency: batches sum to B, b = g m, fractions sum to 1, memory and times
/// recomputed from the model and the reference interpolation.
void expect_consistent(const core::HeteroPlan& plan, const std::vector<core::RankProfile>& profiles,
                       const core::MemoryModel& model, int global_batch) {
  ASSERT_EQ(plan.ranks.size(), profiles.size());
  int batch = 0;
  double fractions = 0.0;
  double step_s = 0.0;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const core::RankPlan& r = plan.ranks[i];
    EXPECT_GE(r.batch, 1);
    EXPECT_EQ(r.batch, r.micro_batch * r.accumulation);
    EXPECT_GE(r.shard_fraction, 0.0);
    EXPECT_NEAR(r.step_time_s, reference_step_s(profiles[i], r.micro_batch, r.accumulation), 1e-9);
    EXPECT_NEAR(static_cast<double>(r.memory_bytes),
                bytes_of(model, r.shard_fraction, r.micro_batch), 1.0);
    if (plan.fits) {
      EXPECT_LE(r.memory_bytes, profiles[i].capacity_bytes) << "rank " << i;
    }
    batch += r.batch;
    fractions += r.shard_fraction;
    step_s = std::max(step_s, r.step_time_s);
  }
  EXPECT_EQ(batch, global_batch);
  EXPECT_NEAR(fractions, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(plan.step_time_s, step_s);
}

/// Increasing times measured at 1, 3 and 6 samples (extrapolated beyond 6); memory in GB.
core::RankProfile random_profile(std::mt19937& rng) {
  std::uniform_real_distribution<double> first(0.5, 2.0);
  std::uniform_real_distribution<double> step(0.2, 4.0);
  std::uniform_int_distribution<int> capacity_gb(2, 25);
  const double t1 = first(rng);
  const double t3 = t1 + step(rng);
  const double t6 = t3 + step(rng);
  return profile({1, 3, 6}, {t1, t3, t6}, capacity_gb(rng));
}

// At constant speed (time proportional to the micro-batch) the numbers of micro-batches G that
// give the same split take the same time, up to rounding in the last bits of G x t(m): the plan
// must take the smallest such G, the largest micro-batches, not whichever G rounding favours.
// Here rank 2 holds at most 4 samples, so 8 samples each run as G = 2, 4 or 8 (these speeds,
// found by a search, made rounding pick G = 4).
TEST(HeteroPlanLockstep, AtConstantSpeedTakesTheFewestMicroBatches) {
  std::vector<core::RankProfile> profiles;
  for (const double speed : {54.258547276878133, 43.812312467585457, 45.730520280122334})
    profiles.push_back(profile({1, 24}, {1 / speed, 24 / speed}, 100));
  profiles[2].capacity_bytes = static_cast<std::int64_t>(4.5 * kGB);
  const core::HeteroPlan plan = core::plan_heterogeneous_lockstep(profiles, model_gb(0, 0, 1), 24);
  ASSERT_TRUE(plan.fits) << plan.why;
  for (const core::RankPlan& r : plan.ranks) {
    EXPECT_EQ(r.batch, 8) << plan.why;
    EXPECT_EQ(r.accumulation, 2) << plan.why;
  }
}

}  // namespace

TEST(MicroBatchTime, InterpolatesBetweenAndExtrapolatesBeyondMeasuredSizes) {
  const core::RankProfile p = profile({1, 2, 4}, {1.0, 1.5, 3.0}, 1);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(p, 1), 1.0);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(p, 2), 1.5);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(p, 3), 2.25);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(p, 4), 3.0);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(p, 6), 4.5);  // slope 0.75 s/sample from 2..4
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(profile({2, 4}, {2.0, 3.0}, 1), 1), 1.5);
  EXPECT_DOUBLE_EQ(core::micro_batch_time_s(profile({4}, {2.0}, 1), 2), 1.0);
}

TEST(MicroBatchTime, RejectsMalformedProfiles) {
  EXPECT_THROW(core::micro_batch_time_s(profile({}, {}, 1), 1), std::invalid_argument);
  EXPECT_THROW(core::micro_batch_time_s(profile({1, 2}, {1.0}, 1), 1), std::invalid_argument);
  EXPECT_THROW(core::micro_batch_time_s(profile({2, 2}, {1.0, 2.0}, 1), 1), std::invalid_argument);
  EXPECT_THROW(core::micro_batch_time_s(profile({1, 2}, {1.0, 0.0}, 1), 1), std::invalid_argument);
  EXPECT_THROW(core::micro_batch_time_s(profile({1}, {1.0}, 1), 0), std::invalid_argument);
}

TEST(ProportionalSplit, LargestRemainderHandValues) {
  EXPECT_EQ(core::proportional_split(10, {3.0, 1.0, 1.0}), (std::vector<int>{6, 2, 2}));
  EXPECT_EQ(core::proportional_split(10, {1.0, 1.0, 1.0}), (std::vector<int>{4, 3, 3}));
  EXPECT_EQ(core::proportional_split(7, {2.0, 1.0}), (std::vector<int>{5, 2}));
  // Quotas 4.95 and 0.05: largest remainder gives (5, 0); rank 1 takes one back.
  EXPECT_EQ(core::proportional_split(5, {100.0, 1.0}), (std::vector<int>{4, 1}));
}

TEST(ProportionalSplit, RejectsTooSmallBatchAndBadSpeeds) {
  EXPECT_THROW(core::proportional_split(1, {1.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(core::proportional_split(4, {1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(core::proportional_split(4, {}), std::invalid_argument);
}

TEST(MemoryProportionalFractions, EqualUsedFractionHandValues) {
  // fixed = 2 + 2 = 4 GB each; f = (16 + 8) / 40 = 0.6; s = (6 - 4) / 16, (18 - 4) / 16.
  const auto s = core::memory_proportional_fractions({10'000'000'000, 30'000'000'000},
                                                     model_gb(16, 2, 1), {2, 2});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], 0.125, 1e-12);
  EXPECT_NEAR(s[1], 0.875, 1e-12);
}

TEST(MemoryProportionalFractions, ClampsRanksFullWithoutStateAndRedistributes) {
  // fixed = (4, 2, 2) GB; f = 28 / 54 leaves rank 0 negative; then f = 24 / 50 = 0.48:
  // s1 = (0.48 * 20 - 2) / 20 = 0.38, s2 = (0.48 * 30 - 2) / 20 = 0.62.
  const auto s = core::memory_proportional_fractions(
      {4'000'000'000, 20'000'000'000, 30'000'000'000}, model_gb(20, 1, 1), {3, 1, 1});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0], 0.0);
  EXPECT_NEAR(s[1], 0.38, 1e-12);
  EXPECT_NEAR(s[2], 0.62, 1e-12);
}

TEST(MemoryProportionalFractions, NoStateIsEvenAndBadInputThrows) {
  EXPECT_EQ(core::memory_proportional_fractions({1, 3}, model_gb(0, 1, 1), {1, 1}),
            (std::vector<double>{0.5, 0.5}));
  EXPECT_THROW(core::memory_proportional_fractions({1, 2}, model_gb(1, 0, 0), {1}),
               std::invalid_argument);
  EXPECT_THROW(core::memory_proportional_fractions({0}, model_gb(1, 0, 0), {1}),
               std::invalid_argument);
  EXPECT_THROW(core::memory_proportional_fractions({1}, model_gb(-1, 0, 0), {1}),
               std::invalid_argument);
}

TEST(HeteroPlan, MatchesBruteForceOnRandomProfiles) {
  std::mt19937 rng(20261130);
  std::uniform_int_distribution<int> ranks(2, 3);
  std::uniform_int_distribution<int> batch(3, 12);
  std::uniform_real_distribution<double> state_gb(1.0, 30.0);
  std::uniform_real_distribution<double> replicated_gb(0.0, 3.0);
  std::uniform_real_distribution<double> activation_gb(0.5, 3.0);
  int fitting = 0;
  int memory_bound = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<core::RankProfile> profiles;
    for (int i = ranks(rng); i > 0; --i) profiles.push_back(random_profile(rng));
    const core::MemoryModel model = model_gb(state_gb(rng), replicated_gb(rng), activation_gb(rng));
    const int global_batch = batch(rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    const core::HeteroPlan plan = core::plan_heterogeneous(profiles, model, global_batch);
    const BruteForce best = brute_force(profiles, model, global_batch);
    expect_consistent(plan, profiles, model, global_batch);
    ASSERT_EQ(plan.fits, best.fits) << plan.why;
    if (best.fits) {
      EXPECT_NEAR(plan.step_time_s, best.step_time_s, 1e-9);
    }
    fitting += best.fits ? 1 : 0;
    std::vector<core::RankProfile> roomy = profiles;
    for (auto& p : roomy) p.capacity_bytes = std::int64_t{1} << 60;
    const bool slowed =
        best.fits && best.step_time_s > brute_force(roomy, model, global_batch).step_time_s;
    memory_bound += slowed ? 1 : 0;
  }
  // Fitting, unfitting and memory-slowed cases must all occur for the comparison to mean much.
  EXPECT_GT(fitting, 60);
  EXPECT_LT(fitting, 280);
  EXPECT_GT(memory_bound, 20);
}

// Cephalo's cost model charges each micro-batch after the first a fixed overhead: the planner must
// still find the least step time, now against g t(m) + (g - 1) overhead.
TEST(HeteroPlan, MatchesBruteForceWithAccumulationOverhead) {
  std::mt19937 rng(20261207);
  std::uniform_real_distribution<double> overhead_s(0.0, 3.0);
  int accumulating = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<core::RankProfile> profiles;
    for (int i = 0; i < 3; ++i) {
      profiles.push_back(random_profile(rng));
      profiles.back().accumulation_overhead_s = overhead_s(rng);
    }
    const core::MemoryModel model = model_gb(10.0, 1.0, 2.0);
    SCOPED_TRACE("trial " + std::to_string(trial));
    const core::HeteroPlan plan = core::plan_heterogeneous(profiles, model, 10);
    const BruteForce best = brute_force(profiles, model, 10);
    expect_consistent(plan, profiles, model, 10);
    ASSERT_EQ(plan.fits, best.fits) << plan.why;
    if (best.fits) {
      EXPECT_NEAR(plan.step_time_s, best.step_time_s, 1e-9);
    }
    for (const core::RankPlan& r : plan.ranks) accumulating += r.accumulation > 1 ? 1 : 0;
  }
  EXPECT_GT(accumulating, 20);  // the overhead must have been charged somewhere
}

TEST(StepTime, AddsTheOverheadOfEveryMicroBatchAfterTheFirst) {
  core::RankProfile p = profile({1, 2}, {1.0, 2.0}, 1);
  p.accumulation_overhead_s = 0.25;
  EXPECT_DOUBLE_EQ(core::step_time_s(p, 2, 1), 2.0);
  EXPECT_DOUBLE_EQ(core::step_time_s(p, 2, 3), 3 * 2.0 + 2 * 0.25);
  EXPECT_THROW(core::step_time_s(p, 2, 0), std::invalid_argument);
  p.accumulation_overhead_s = -1;
  EXPECT_THROW(core::step_time_s(p, 2, 2), std::invalid_argument);
}

TEST(HeteroPlan, LockstepMatchesBruteForceOverCommonAccumulations) {
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> ranks(2, 3);
  std::uniform_int_distribution<int> batch(3, 12);
  std::uniform_real_distribution<double> state_gb(1.0, 30.0);
  std::uniform_real_distribution<double> activation_gb(0.5, 3.0);
  int fitting = 0;
  int accumulating = 0;
  int fallback = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<core::RankProfile> profiles;
    for (int i = ranks(rng); i > 0; --i) profiles.push_back(random_profile(rng));
    const core::MemoryModel model = model_gb(state_gb(rng), 0.5, activation_gb(rng));
    const int global_batch = batch(rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    BruteForce best;
    for (int g = 1; g * static_cast<int>(profiles.size()) <= global_batch; ++g) {
      if (global_batch % g != 0) continue;
      const BruteForce with_g = brute_force(profiles, model, global_batch, g);
      if (with_g.fits && with_g.step_time_s < best.step_time_s) best = with_g;
    }
    const core::HeteroPlan plan = core::plan_heterogeneous_lockstep(profiles, model, global_batch);
    expect_consistent(plan, profiles, model, global_batch);
    if (!best.fits) {  // falls back to uneven accumulation when that fits
      ASSERT_EQ(plan.fits, brute_force(profiles, model, global_batch).fits) << plan.why;
      EXPECT_EQ(plan.why.rfind("No plan with the same number of micro-batches", 0), 0u);
      fallback += plan.fits ? 1 : 0;
      continue;
    }
    ASSERT_TRUE(plan.fits) << plan.why;
    ++fitting;
    EXPECT_NEAR(plan.step_time_s, best.step_time_s, 1e-9);
    for (const core::RankPlan& r : plan.ranks)
      EXPECT_EQ(r.accumulation, plan.ranks.front().accumulation);
    accumulating += plan.ranks.front().accumulation > 1 ? 1 : 0;
    EXPECT_EQ(plan.why.rfind("Every rank runs " + std::to_string(plan.ranks.front().accumulation) +
                                 " micro-batches",
                             0),
              0u)
        << plan.why;
  }
  EXPECT_GT(fitting, 40);
  EXPECT_GT(accumulating, 10);  // memory forces several rounds in some cases
  EXPECT_GT(fallback, 0);       // and a common count fails where uneven ones fit
}

TEST(HeteroPlan, FastRankWithLittleMemoryAccumulatesWhileSlowRankHoldsState) {
  // Rank 0: t(m) = 0.1 + m s, 3 GB (micro-batch <= 2 fits); rank 1: t(m) = 0.3 + 3m s, 40 GB.
  // State 10 GB, replicated 1 GB, activations 1 GB/sample, B = 16. By hand: (12, 4) with
  // rank 0 at 6 x 2 samples (12.6 s) and rank 1 at 1 x 4 (12.3 s) beats (11, 5): 15.3 s,
  // (13, 3): 14.3 s and (14, 2): 14.7 s. Rank 0 is full without state: s = (0, 1).
  const std::vector<core::RankProfile> profiles = {profile({1, 2, 4}, {1.1, 2.1, 4.1}, 3),
                                                   profile({1, 2, 4}, {3.3, 6.3, 12.3}, 40)};
  const core::MemoryModel model = model_gb(10, 1, 1);
  const core::HeteroPlan plan = core::plan_heterogeneous(profiles, model, 16);
  expect_consistent(plan, profiles, model, 16);
  ASSERT_TRUE(plan.fits) << plan.why;
  EXPECT_NEAR(plan.step_time_s, 12.6, 1e-12);
  EXPECT_NEAR(plan.step_time_s, brute_force(profiles, model, 16).step_time_s, 1e-12);
  EXPECT_EQ(plan.ranks[0].batch, 12);
  EXPECT_EQ(plan.ranks[0].micro_batch, 2);
  EXPECT_EQ(plan.ranks[0].accumulation, 6);
  EXPECT_EQ(plan.ranks[1].batch, 4);
  EXPECT_EQ(plan.ranks[1].micro_batch, 4);
  EXPECT_EQ(plan.ranks[1].accumulation, 1);
  EXPECT_NEAR(plan.ranks[0].shard_fraction, 0.0, 1e-12);
  EXPECT_NEAR(plan.ranks[1].shard_fraction, 1.0, 1e-12);
  EXPECT_EQ(plan.ranks[0].memory_bytes, 3'000'000'000);
  EXPECT_EQ(plan.ranks[1].memory_bytes, 15'000'000'000);
  EXPECT_NE(plan.why.find("Rank 0 limits the step"), std::string::npos) << plan.why;
  EXPECT_NE(plan.why.find("Rank 0 uses the largest share of its memory"), std::string::npos)
      << plan.why;
}

TEST(HeteroPlan, RankThatCannotHoldOneSampleIsReportedWithItsShortfall) {
  // Rank 0 needs 1 + 1 GB at micro-batch 1 and has 1.5 GB: short by 0.5 GB. Rank 1 takes all
  // the state (10 + 2 of 40 GB).
  const std::vector<core::RankProfile> profiles = {profile({1}, {1.0}, 1.5),
                                                   profile({1}, {1.0}, 40)};
  const core::MemoryModel model = model_gb(10, 1, 1);
  const core::HeteroPlan plan = core::plan_heterogeneous(profiles, model, 4);
  expect_consistent(plan, profiles, model, 4);
  EXPECT_FALSE(plan.fits);
  EXPECT_FALSE(brute_force(profiles, model, 4).fits);
  EXPECT_EQ(plan.ranks[0].micro_batch, 1);
  EXPECT_EQ(plan.ranks[0].memory_bytes, 2'000'000'000);
  EXPECT_NEAR(plan.ranks[1].shard_fraction, 1.0, 1e-12);
  EXPECT_NE(plan.why.find("rank 0 is short by"), std::string::npos) << plan.why;
  EXPECT_NE(plan.why.find("(500000000 bytes)"), std::string::npos) << plan.why;
}

TEST(HeteroPlan, StateTooLargeForAllRanksIsSharedEvenlyAndReported) {
  // 100 GB of state over two 12 GB ranks: s = (0.5, 0.5), each holds 50 + 2 GB, 40 GB over.
  const std::vector<core::RankProfile> profiles = {profile({1}, {1.0}, 12),
                                                   profile({1}, {1.0}, 12)};
  const core::MemoryModel model = model_gb(100, 1, 1);
  const core::HeteroPlan plan = core::plan_heterogeneous(profiles, model, 4);
  expect_consistent(plan, profiles, model, 4);
  EXPECT_FALSE(plan.fits);
  EXPECT_EQ(plan.ranks[0].batch, 2);
  EXPECT_EQ(plan.ranks[1].batch, 2);
  EXPECT_EQ(plan.ranks[0].memory_bytes, 52'000'000'000);
  EXPECT_NE(plan.why.find("(40000000000 bytes)"), std::string::npos) << plan.why;
}

TEST(HeteroPlan, RejectsBadInput) {
  const core::MemoryModel model = model_gb(1, 0, 0);
  const std::vector<core::RankProfile> two = {profile({1}, {1.0}, 10), profile({1}, {1.0}, 10)};
  EXPECT_THROW(core::plan_heterogeneous(two, model, 1), std::invalid_argument);
  EXPECT_THROW(core::plan_heterogeneous({}, model, 4), std::invalid_argument);
  try {
    core::plan_heterogeneous({profile({1}, {1.0}, 10), profile({2, 3}, {1.0, 3.0}, 10)}, model, 4);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    // t(1) = 1 - 2 = -1 s for rank 1.
    EXPECT_NE(std::string(e.what()).find("rank 1: time of micro-batch 1"), std::string::npos)
        << e.what();
  }
}
