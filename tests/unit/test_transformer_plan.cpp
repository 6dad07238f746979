// The transformer planner: even and configured splits, micro-batches shrunk to the largest
// divisor that fits (against a brute-force loop over divisors), memory-proportional shards that
// fill every rank to the same fraction, the auto split on synthetic profiles, the auto state
// sharding's choice of stage, oom reports and the proportional split; describe_plan's line.

#include "kernels/transformer/transformer_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/memory_budget.hpp"
#include "kernels/transformer/state_layout.hpp"

namespace scaletune::kernels {
namespace {

GptShape plan_shape() {
  return {.layers = 4, .hidden = 32, .heads = 2, .seq_len = 8, .vocab = 64};
}

GptShape with_micro_batch(GptShape shape, int micro_batch) {
  shape.max_micro_batch = micro_batch;
  return shape;
}

TransformerPlanRequest request(std::vector<int> batches, std::vector<std::int64_t> capacity,
                               const char* sharding) {
  TransformerPlanRequest r;
  r.shape = plan_shape();
  r.global_batch = std::accumulate(batches.begin(), batches.end(), 0);
  r.per_rank_batch = std::move(batches);
  r.sharding = job::state_sharding_from_text(sharding).value();
  r.capacity_bytes = std::move(capacity);
  return r;
}

/// Time of one micro-batch of m samples proportional to m: `per_sample_s` seconds each,
/// measured at 1, 2, 4 and 8 samples.
core::RankProfile linear_profile(double per_sample_s) {
  return {
      {1, 2, 4, 8}, {per_sample_s, 2 * per_sample_s, 4 * per_sample_s, 8 * per_sample_s}, 0, {}};
}

/// linear_profile with every size's timings spread by `spread` ((p75 - p25) / median).
core::RankProfile noisy_profile(double per_sample_s, double spread) {
  core::RankProfile p = linear_profile(per_sample_s);
  p.spread.assign(p.time_s.size(), spread);
  return p;
}

double model_bytes(const core::MemoryModel& model, double fraction, int micro_batch) {
  return model.state_bytes * fraction + model.replicated_bytes +
         model.activation_bytes_per_sample * micro_batch;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Each rank's exact memory (transformer_memory of its micro-batch, its shard of the plan's
/// fractions and its largest part of one unit, element by element) and memory_bytes.
void expect_exact_memory(const TransformerPlan& plan, const GptShape& shape) {
  const auto N = static_cast<std::size_t>(GptModel::parameter_count(shape));
  std::vector<double> fractions;
  for (const core::RankPlan& r : plan.ranks) fractions.push_back(r.shard_fraction);
  const ShardLayout layout = shard_layout(N, fractions);
  ASSERT_EQ(plan.memory.size(), plan.ranks.size());
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    std::size_t begin = 0, largest = 0;
    for (const std::int64_t u : GptModel::unit_parameter_counts(shape)) {
      std::size_t held = 0;
      for (std::size_t e = begin; e < begin + static_cast<std::size_t>(u); ++e)
        held += e >= layout.offsets[i] && e < layout.offsets[i] + layout.counts[i];
      largest = std::max(largest, held);
      begin += static_cast<std::size_t>(u);
    }
    const TransformerMemory m =
        transformer_memory(with_micro_batch(shape, plan.ranks[i].micro_batch), plan.sharding.stage,
                           layout.counts[i], largest);
    EXPECT_EQ(plan.memory[i].total(), m.total()) << "rank " << i;
    EXPECT_EQ(plan.memory[i].parameters, m.parameters) << "rank " << i;
    EXPECT_EQ(plan.memory[i].comm_buffers, m.comm_buffers) << "rank " << i;
    EXPECT_EQ(plan.ranks[i].memory_bytes, m.total()) << "rank " << i;
  }
}

TEST(TransformerPlan, EvenSplitWithoutLimitRunsWholeBatches) {
  const TransformerPlan plan = plan_transformer(request({4, 4}, {0, 0}, "zero1"));
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.sharding.stage, ZeroStage::zero1);
  EXPECT_FALSE(plan.sharding.memory_proportional);
  EXPECT_FALSE(plan.sharding.automatic);
  for (const core::RankPlan& r : plan.ranks) {
    EXPECT_EQ(r.batch, 4);
    EXPECT_EQ(r.micro_batch, 4);
    EXPECT_EQ(r.accumulation, 1);
    EXPECT_DOUBLE_EQ(r.shard_fraction, 0.5);
    EXPECT_EQ(r.step_time_s, 0.0);
  }
  EXPECT_EQ(plan.rounds, 1);
  EXPECT_TRUE(plan.fits) << plan.why;
  EXPECT_TRUE(contains(plan.why, "as configured")) << plan.why;
  expect_exact_memory(plan, plan_shape());
}

TEST(TransformerPlan, MicroBatchIsTheLargestDivisorThatFits) {
  const core::MemoryModel model =
      transformer_memory_model(plan_shape(), ZeroStage::zero1, false, 2);
  const std::vector<int> divisors = {12, 6, 4, 3, 2, 1};
  for (const int d : divisors) {
    // Just enough for micro-batch d on rank 1; rank 0 has no limit.
    const auto cap = static_cast<std::int64_t>(std::floor(model_bytes(model, 0.5, d))) + 1;
    int expected = 1;  // brute force: the largest divisor of 12 whose model fits
    for (int m = 12; m >= 1; --m)
      if (12 % m == 0 && model_bytes(model, 0.5, m) <= static_cast<double>(cap)) {
        expected = m;
        break;
      }
    ASSERT_EQ(expected, d) << "the capacities must separate the divisors";
    const TransformerPlan plan = plan_transformer(request({12, 12}, {0, cap}, "zero1"));
    SCOPED_TRACE(describe_plan(plan));
    EXPECT_EQ(plan.ranks[0].micro_batch, 12);
    EXPECT_EQ(plan.ranks[1].micro_batch, expected);
    EXPECT_EQ(plan.ranks[1].accumulation, 12 / expected);
    EXPECT_EQ(plan.rounds, 12 / expected);
    EXPECT_TRUE(plan.fits);
    EXPECT_LE(plan.ranks[1].memory_bytes, cap);
    expect_exact_memory(plan, plan_shape());
  }
}

TEST(TransformerPlan, MemoryProportionalShardsFillEveryRankEqually) {
  const core::MemoryModel model = transformer_memory_model(plan_shape(), ZeroStage::zero3, true, 3);
  const double fixed = model_bytes(model, 0.0, 2);
  // Capacities 2C, 3C and 4C with 9C = 2 (state + 3 fixed): every rank at half its capacity;
  // none is clamped when 2C / 2 > fixed, that is 2 state > 3 fixed.
  ASSERT_GT(2 * model.state_bytes, 3 * fixed);
  const double C = 2 * (model.state_bytes + 3 * fixed) / 9;
  const std::vector<std::int64_t> cap = {std::llround(2 * C), std::llround(3 * C),
                                         std::llround(4 * C)};
  const TransformerPlan plan =
      plan_transformer(request({2, 2, 2}, cap, "zero3:memory_proportional"));
  SCOPED_TRACE(describe_plan(plan));
  ASSERT_TRUE(plan.fits);
  double sum = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    const core::RankPlan& r = plan.ranks[i];
    EXPECT_EQ(r.micro_batch, 2);
    // s_i = (0.5 cap_i - fixed) / state, by hand.
    EXPECT_NEAR(r.shard_fraction, (0.5 * static_cast<double>(cap[i]) - fixed) / model.state_bytes,
                1e-9);
    EXPECT_NEAR(model_bytes(model, r.shard_fraction, 2) / static_cast<double>(cap[i]), 0.5, 1e-9);
    EXPECT_LE(r.memory_bytes, cap[i]);
    sum += r.shard_fraction;
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_LT(plan.ranks[0].shard_fraction, plan.ranks[1].shard_fraction);
  EXPECT_LT(plan.ranks[1].shard_fraction, plan.ranks[2].shard_fraction);
  expect_exact_memory(plan, plan_shape());
}

TEST(TransformerPlan, AutoSplitGivesTheTwiceAsFastRankTwiceTheSamples) {
  TransformerPlanRequest r = request({}, {0, 0}, "replicated");
  r.global_batch = 12;
  r.auto_split = true;
  r.profiles = {linear_profile(0.05), linear_profile(0.1)};
  const TransformerPlan plan = plan_transformer(r);
  SCOPED_TRACE(describe_plan(plan));
  ASSERT_TRUE(plan.fits);
  // T = max(0.05 b0, 0.1 b1) with b0 + b1 = 12 is least at (8, 4): 0.4 s each.
  EXPECT_EQ(plan.ranks[0].batch, 8);
  EXPECT_EQ(plan.ranks[1].batch, 4);
  const double t0 = 0.05 * plan.ranks[0].micro_batch, t1 = 0.1 * plan.ranks[1].micro_batch;
  EXPECT_NEAR(plan.ranks[0].step_time_s, plan.ranks[0].accumulation * t0, 1e-12);
  EXPECT_NEAR(plan.ranks[1].step_time_s, plan.ranks[1].accumulation * t1, 1e-12);
  EXPECT_LE(std::abs(plan.ranks[0].step_time_s - plan.ranks[1].step_time_s), std::max(t0, t1));
  for (const core::RankPlan& rank : plan.ranks)
    EXPECT_EQ(rank.batch, rank.micro_batch * rank.accumulation);
  expect_exact_memory(plan, plan_shape());
}

TEST(TransformerPlan, AutoSplitFastRankWithLittleMemoryAccumulatesAndHoldsNoState) {
  const core::MemoryModel model = transformer_memory_model(plan_shape(), ZeroStage::zero3, true, 2);
  // Rank 0: twice as fast, room for micro-batch 2 and no state; rank 1: no limit.
  const auto cap0 = static_cast<std::int64_t>(std::floor(model_bytes(model, 0.0, 2))) + 1;
  ASSERT_GT(model_bytes(model, 0.0, 3), static_cast<double>(cap0));
  TransformerPlanRequest r = request({}, {cap0, 0}, "zero3:memory_proportional");
  r.global_batch = 12;
  r.auto_split = true;
  r.profiles = {linear_profile(0.05), linear_profile(0.1)};
  const TransformerPlan plan = plan_transformer(r);
  SCOPED_TRACE(describe_plan(plan));
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(plan.ranks[0].batch, 8);
  EXPECT_LE(plan.ranks[0].micro_batch, 2);
  EXPECT_GE(plan.ranks[0].accumulation, 4);
  EXPECT_EQ(plan.ranks[0].shard_fraction, 0.0);
  EXPECT_NEAR(plan.ranks[1].shard_fraction, 1.0, 1e-12);
  EXPECT_LE(plan.memory[0].total(), cap0);
  EXPECT_EQ(plan.rounds, std::max(plan.ranks[0].accumulation, plan.ranks[1].accumulation));
  expect_exact_memory(plan, plan_shape());
}

TEST(TransformerPlan, AutoShardingWithAmpleMemoryIsReplicated) {
  const TransformerPlan plan = plan_transformer(request({2, 2}, {0, 0}, "auto"));
  EXPECT_EQ(plan.sharding.stage, ZeroStage::replicated);
  EXPECT_FALSE(plan.sharding.automatic);
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.why.rfind("auto: replicated fits", 0), 0u) << plan.why;
  EXPECT_EQ(describe_plan(plan).rfind("replicated; r0 b=2 m=2 g=1 s=0.500 ", 0), 0u)
      << describe_plan(plan);
}

/// The largest of the two ranks' exact memory with even shards at micro-batch 1.
std::int64_t even_need(ZeroStage stage) {
  TransformerPlan plan =
      plan_transformer(request({1, 1}, {0, 0}, std::string(stage_name(stage)).c_str()));
  return std::max(plan.memory[0].total(), plan.memory[1].total());
}

TEST(TransformerPlan, AutoShardingPicksZero2BetweenZero2AndZero1sNeed) {
  const std::int64_t zero1 = even_need(ZeroStage::zero1), zero2 = even_need(ZeroStage::zero2);
  ASSERT_LT(zero2 + 1000, zero1);
  const std::int64_t cap = (zero1 + zero2) / 2;
  const TransformerPlan plan = plan_transformer(request({1, 1}, {cap, cap}, "auto"));
  EXPECT_EQ(plan.sharding.stage, ZeroStage::zero2) << plan.why;
  EXPECT_TRUE(plan.sharding.memory_proportional);
  EXPECT_FALSE(plan.sharding.automatic);
  EXPECT_TRUE(plan.fits) << plan.why;
  EXPECT_TRUE(contains(plan.why, "replicated does not fit (the plan does not fit rank "))
      << plan.why;
  EXPECT_TRUE(contains(plan.why, "zero1 does not fit (the plan does not fit rank ")) << plan.why;
  EXPECT_TRUE(contains(plan.why, "short by")) << plan.why;
  EXPECT_TRUE(contains(plan.why, "zero2 fits")) << plan.why;
  EXPECT_FALSE(contains(plan.why, "zero3")) << plan.why;
  EXPECT_EQ(describe_plan(plan).rfind("zero2:memory_proportional; r0 b=1 m=1 g=1 s=0.500", 0), 0u)
      << describe_plan(plan);
}

TEST(TransformerPlan, AutoShardingWhenNothingFitsReportsZero3sShortfall) {
  const TransformerPlan plan = plan_transformer(request({2, 2}, {100000, 100000}, "auto"));
  EXPECT_FALSE(plan.fits);
  EXPECT_EQ(plan.sharding.stage, ZeroStage::zero3);
  EXPECT_EQ(plan.ranks[0].micro_batch, 1);  // shrunk as far as it goes
  for (const char* stage : {"replicated", "zero1", "zero2", "zero3"})
    EXPECT_TRUE(
        contains(plan.why, std::string(stage) + " does not fit (the plan does not fit rank "))
        << plan.why;
  const std::int64_t need = std::max(plan.memory[0].total(), plan.memory[1].total());
  const int worst = plan.memory[0].total() >= plan.memory[1].total() ? 0 : 1;
  EXPECT_TRUE(contains(plan.why,
                       "rank " + std::to_string(worst) + ": it needs " + core::format_bytes(need)))
      << plan.why;
  EXPECT_TRUE(contains(plan.why, "short by " + core::format_bytes(need - 100000))) << plan.why;
  EXPECT_TRUE(plan.why.ends_with("no stage fits")) << plan.why;
}

TEST(TransformerPlan, OomNamesTheRankWithTheLargestShortfall) {
  const TransformerPlan roomy = plan_transformer(request({1, 1}, {0, 0}, "zero1"));
  const std::int64_t need0 = roomy.memory[0].total(), need1 = roomy.memory[1].total();
  const TransformerPlan plan =
      plan_transformer(request({1, 1}, {need0 - 100, need1 - 5000}, "zero1"));
  EXPECT_FALSE(plan.fits);
  EXPECT_EQ(plan.ranks[1].memory_bytes, need1);
  const std::string head = "the plan does not fit rank 1: it needs " + core::format_bytes(need1) +
                           " (" + plan.memory[1].describe();
  const std::string tail = "more than its " + core::format_bytes(need1 - 5000) + ": short by " +
                           core::format_bytes(5000);
  EXPECT_EQ(plan.why.rfind(head, 0), 0u) << plan.why;
  EXPECT_TRUE(plan.why.ends_with(tail)) << plan.why;
  // One byte short on rank 0 only: it is named.
  const TransformerPlan one = plan_transformer(request({1, 1}, {need0 - 1, 0}, "zero1"));
  EXPECT_FALSE(one.fits);
  EXPECT_TRUE(one.why.starts_with("the plan does not fit rank 0: it needs ")) << one.why;
  EXPECT_TRUE(one.why.ends_with("short by " + core::format_bytes(1))) << one.why;
  EXPECT_TRUE(plan_transformer(request({1, 1}, {need0, need1}, "zero1")).fits);
}

/// Largest-remainder shares of `total` by weight (ties to the lower rank), by hand.
std::vector<int> largest_remainder(int total, const std::vector<double>& weight) {
  const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::vector<int> share;
  std::vector<double> rest;
  for (const double w : weight) {
    const double quota = total * w / sum;
    share.push_back(static_cast<int>(std::floor(quota)));
    rest.push_back(quota - std::floor(quota));
  }
  for (int left = total - std::accumulate(share.begin(), share.end(), 0); left > 0; --left) {
    const auto best = std::max_element(rest.begin(), rest.end()) - rest.begin();
    ++share[static_cast<std::size_t>(best)];
    rest[static_cast<std::size_t>(best)] = -1.0;
  }
  return share;
}

TEST(TransformerPlan, ProportionalSplitFollowsSamplesPerSecondAtTheLargestMicroBatch) {
  TransformerPlanRequest r = request({}, {0, 0, 0}, "zero2");
  r.global_batch = 15;
  // 4 samples in 0.2, 0.5 and 1.0 s: 20, 8 and 4 samples/s (the smaller sizes do not count).
  r.profiles = {{{1, 2, 4}, {0.05, 0.1, 0.2}, 0, {}},
                {{1, 2, 4}, {0.1, 0.25, 0.5}, 0, {}},
                {{1, 2, 4}, {0.3, 0.6, 1.0}, 0, {}}};
  const TransformerPlan plan = plan_transformer(r);
  SCOPED_TRACE(describe_plan(plan));
  const std::vector<int> expected = largest_remainder(15, {20.0, 8.0, 4.0});
  ASSERT_EQ(expected, (std::vector<int>{9, 4, 2}));
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.ranks[i].batch, expected[i]);
    EXPECT_EQ(plan.ranks[i].micro_batch, expected[i]);  // no limit: the whole batch
  }
  // One micro-batch each: 9 samples extrapolated from 2..4 (0.05 s/sample): 0.45 s; 4: 0.5 s;
  // 2: 0.6 s.
  EXPECT_NEAR(plan.ranks[0].step_time_s, 0.45, 1e-12);
  EXPECT_NEAR(plan.ranks[1].step_time_s, 0.5, 1e-12);
  EXPECT_NEAR(plan.ranks[2].step_time_s, 0.6, 1e-12);
  EXPECT_TRUE(contains(plan.why, "samples/s (r0 20, r1 8, r2 4)")) << plan.why;
  EXPECT_TRUE(plan.fits);
}

TEST(SpeedContrast, IsTheFastestOverTheSlowestAgainstTheLargestSpread) {
  // 8 samples in 0.4, 0.5 and 0.44 s: 20, 16 and 18.18 samples/s.
  const SpeedContrast c = speed_contrast(
      {noisy_profile(0.05, 0.02), noisy_profile(0.0625, 0.1), noisy_profile(0.055, 0.04)});
  EXPECT_NEAR(c.difference, 20.0 / 16.0 - 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(c.spread, 0.1);
  EXPECT_TRUE(c.distinguishable());
  EXPECT_FALSE(
      speed_contrast({noisy_profile(0.05, 0.3), noisy_profile(0.0625, 0.0)}).distinguishable());
  EXPECT_THROW(speed_contrast({}), std::invalid_argument);
}

// Speeds 66.7% apart: planned by speed when the profiles' spread is 10%, as even when it is 80%
// (the planner cannot tell the ranks apart), for auto and proportional, replicated and zero3.
TEST(TransformerPlan, SpeedsWithinTheProfilesSpreadArePlannedAsEven) {
  for (const char* sharding : {"replicated", "zero3"}) {
    for (const bool auto_split : {true, false}) {
      SCOPED_TRACE(std::string(sharding) + (auto_split ? " auto" : " proportional"));
      TransformerPlanRequest r = request({}, {0, 0, 0}, sharding);
      r.global_batch = 24;
      r.auto_split = auto_split;
      r.profiles = {noisy_profile(0.03, 0.1), noisy_profile(0.05, 0.1), noisy_profile(0.05, 0.1)};
      const TransformerPlan by_speed = plan_transformer(r);
      SCOPED_TRACE(describe_plan(by_speed));
      EXPECT_GT(by_speed.ranks[0].batch, by_speed.ranks[1].batch);
      for (core::RankProfile& p : r.profiles) p.spread.assign(p.time_s.size(), 0.8);
      const TransformerPlan even = plan_transformer(r);
      SCOPED_TRACE(describe_plan(even));
      ASSERT_TRUE(even.fits);
      for (const core::RankPlan& rank : even.ranks) EXPECT_EQ(rank.batch, 8);
      EXPECT_TRUE(contains(even.why,
                           "differ by 66.7%, within their profiles' spread of 80.0%: "
                           "planned as even"))
          << even.why;
      // The prediction stays the profile's: 8 samples at 0.03 and 0.05 s each.
      EXPECT_NEAR(even.ranks[0].step_time_s, 0.24, 1e-12);
      EXPECT_NEAR(even.ranks[1].step_time_s, 0.4, 1e-12);
    }
  }
}

// Given profiles, an even or explicit split predicts each rank's step from them too (what plan
// --profiles compares the auto split with); without them the prediction stays 0.
TEST(TransformerPlan, AFixedSplitWithProfilesPredictsEachRanksStep) {
  TransformerPlanRequest r = request({4, 8}, {0, 0}, "replicated");
  EXPECT_EQ(plan_transformer(r).ranks[1].step_time_s, 0.0);
  r.profiles = {linear_profile(0.05), linear_profile(0.02)};
  const TransformerPlan plan = plan_transformer(r);
  ASSERT_EQ(plan.ranks[0].accumulation, 1);  // no limit: whole batches
  EXPECT_NEAR(plan.ranks[0].step_time_s, 4 * 0.05, 1e-12);
  EXPECT_NEAR(plan.ranks[1].step_time_s, 8 * 0.02, 1e-12);
  r.profiles.pop_back();
  EXPECT_THROW(plan_transformer(r), std::invalid_argument);
}

// An imported profile's memory model (Cephalo's) replaces the shape's: every rank's memory by its
// formula, even shards adding state / ranks to every rank, only zero3 planned; its accumulation
// overhead is in each rank's predicted step.
TEST(TransformerPlan, AGivenMemoryModelReplacesTheShapesUnderZero3Only) {
  TransformerPlanRequest r = request({}, {700, 700}, "zero3:memory_proportional");
  r.global_batch = 12;
  r.auto_split = true;
  r.profiles = {linear_profile(0.05), linear_profile(0.02)};
  for (core::RankProfile& p : r.profiles) p.accumulation_overhead_s = 0.1;
  const core::MemoryModel model{1000, 100, 10};
  r.memory_model = model;
  for (const char* sharding : {"zero3:memory_proportional", "zero3"}) {
    SCOPED_TRACE(sharding);
    r.sharding = job::state_sharding_from_text(sharding).value();
    const TransformerPlan plan = plan_transformer(r);
    ASSERT_TRUE(plan.fits) << plan.why;
    EXPECT_TRUE(plan.memory.empty());
    const bool even = !r.sharding.memory_proportional;
    for (std::size_t i = 0; i < 2; ++i) {
      const core::RankPlan& rank = plan.ranks[i];
      const double bytes = even ? 100 + 1000 / 2.0 + 10 * rank.micro_batch
                                : model_bytes(model, rank.shard_fraction, rank.micro_batch);
      EXPECT_EQ(rank.memory_bytes, std::llround(bytes));
      EXPECT_LE(rank.memory_bytes, 700);
      const double per_sample = i == 0 ? 0.05 : 0.02;
      EXPECT_NEAR(rank.step_time_s, rank.batch * per_sample + (rank.accumulation - 1) * 0.1, 1e-12);
    }
  }
  r.sharding = job::state_sharding_from_text("zero2").value();
  EXPECT_THROW(plan_transformer(r), std::invalid_argument);
}

TEST(CorrectedProfiles, ACommonFactorOrADifferenceWithinTheSpreadChangesNothing) {
  const std::vector<core::RankProfile> profiles = {noisy_profile(0.05, 0.05),
                                                   noisy_profile(0.05, 0.02)};
  // Every rank 1.5 times slower than profiled: the relative speeds hold.
  EXPECT_EQ(corrected_profiles(profiles, {0.4, 0.4}, {0.6, 0.6}), std::nullopt);
  // 4% apart, within the 5% spread.
  EXPECT_EQ(corrected_profiles(profiles, {0.4, 0.4}, {0.4, 0.416}), std::nullopt);
}

TEST(CorrectedProfiles, ScalesEachRankByItsMeasuredOverPredictedTime) {
  const std::vector<core::RankProfile> profiles = {noisy_profile(0.05, 0.05),
                                                   noisy_profile(0.05, 0.05)};
  // Rank 1 took twice its prediction, rank 0 as predicted: 100% apart.
  const auto corrected = corrected_profiles(profiles, {0.4, 0.2}, {0.4, 0.4});
  ASSERT_TRUE(corrected.has_value());
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ((*corrected)[0].time_s[k], profiles[0].time_s[k]);
    EXPECT_DOUBLE_EQ((*corrected)[1].time_s[k], 2 * profiles[1].time_s[k]);
  }
  EXPECT_EQ((*corrected)[1].micro_batches, profiles[1].micro_batches);
  EXPECT_EQ((*corrected)[1].spread, profiles[1].spread);
  // Planned on the corrected profiles, the rank that is really twice as fast gets twice the
  // samples (the profiles said the two were equal).
  TransformerPlanRequest r = request({}, {0, 0}, "replicated");
  r.global_batch = 12;
  r.auto_split = true;
  r.profiles = profiles;
  EXPECT_EQ(plan_transformer(r).ranks[0].batch, 6);
  r.profiles = *corrected;
  const TransformerPlan replanned = plan_transformer(r);
  EXPECT_EQ(replanned.ranks[0].batch, 8) << describe_plan(replanned);
  EXPECT_EQ(replanned.ranks[1].batch, 4);
}

TEST(CorrectedProfiles, RejectsWrongLengthsAndTimesThatAreNotPositive) {
  const std::vector<core::RankProfile> profiles = {linear_profile(0.05), linear_profile(0.05)};
  EXPECT_THROW(corrected_profiles(profiles, {0.4}, {0.4, 0.4}), std::invalid_argument);
  EXPECT_THROW(corrected_profiles(profiles, {0.4, 0.4}, {0.4}), std::invalid_argument);
  EXPECT_THROW(corrected_profiles(profiles, {0.4, 0.0}, {0.4, 0.4}), std::invalid_argument);
  EXPECT_THROW(corrected_profiles(profiles, {0.4, 0.4}, {-1.0, 0.4}), std::invalid_argument);
}

TEST(TransformerPlan, RejectsWrongLengthsAndMissingProfiles) {
  EXPECT_THROW(plan_transformer(request({2, 2}, {}, "zero1")), std::invalid_argument);
  EXPECT_THROW(plan_transformer(request({2, 2, 2}, {0, 0}, "zero1")), std::invalid_argument);
  TransformerPlanRequest proportional = request({}, {0, 0}, "zero1");
  proportional.global_batch = 4;
  proportional.profiles = {linear_profile(0.1)};
  EXPECT_THROW(plan_transformer(proportional), std::invalid_argument);
  TransformerPlanRequest automatic = proportional;
  automatic.auto_split = true;
  automatic.profiles.clear();
  EXPECT_THROW(plan_transformer(automatic), std::invalid_argument);
}

TEST(DescribePlan, OneLinePerRankThenWhy) {
  TransformerPlan plan;
  plan.sharding = {ZeroStage::zero2, true, false};
  plan.ranks = {{16, 8, 2, 0.5, 0.0, 1536}, {4, 4, 1, 0.25, 0.0, 512}};
  plan.why = "because";
  EXPECT_EQ(describe_plan(plan), "zero2:memory_proportional; r0 b=16 m=8 g=2 s=0.500 " +
                                     core::format_bytes(1536) + "; r1 b=4 m=4 g=1 s=0.250 " +
                                     core::format_bytes(512) + "; because");
}

}  // namespace
}  // namespace scaletune::kernels
