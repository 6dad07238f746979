// Recommendation under each objective on metrics where the right answer is obvious by
// construction: one series with baseline 1,000 samples/s on 1 rank, throughput growing
// sub-linearly with ranks, and one configuration that ran out of memory.
#include <gtest/gtest.h>

#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "autotune/recommend.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;
using at::Objective;

namespace {

constexpr double kBaseline = 1000.0;  // samples/s on 1 rank

/// An ok configuration; efficiency from the definition E(p) = X(p)·1 / (p·X(1)).
at::ConfigMetrics ok(const std::string& id, int ranks, double throughput) {
  at::ConfigMetrics m;
  m.id = id;
  m.ranks = ranks;
  m.throughput = throughput;
  m.throughput_per_rank = throughput / ranks;
  m.scaling_efficiency = throughput / (ranks * kBaseline);
  return m;
}

at::ConfigMetrics failed(const std::string& id, int ranks, rs::Status status) {
  at::ConfigMetrics m;
  m.id = id;
  m.ranks = ranks;
  m.status = status;
  m.throughput = m.throughput_per_rank = m.scaling_efficiency =
      std::numeric_limits<double>::quiet_NaN();
  return m;
}

// Efficiencies 1, 0.95, 0.85, 0.70, 0.50; r32 ran out of memory.
const std::vector<at::ConfigMetrics> kSweep = {
    ok("r1", 1, 1000), ok("r2", 2, 1900),   ok("r4", 4, 3400),
    ok("r8", 8, 5600), ok("r16", 16, 8000), failed("r32", 32, rs::Status::oom)};

bool matches(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern));
}

}  // namespace

TEST(AutotuneRecommend, EfficiencyFloorPicksTheFastestAboveTheFloor) {
  const at::Recommendation r = at::recommend(kSweep, Objective::efficiency_floor);
  ASSERT_TRUE(r.id.has_value());
  EXPECT_EQ(*r.id, "r8");  // 0.70 is on the floor; r16 (0.50) is faster but below it
  EXPECT_EQ(r.objective, Objective::efficiency_floor);
  EXPECT_EQ(r.sentence,
            "r8 gives 5,600 samples/s at scaling efficiency 0.70 (>= 0.70); r16 is faster "
            "(8,000 samples/s) but only 0.50 efficient.");
}

TEST(AutotuneRecommend, EfficiencyFloorFollowsTheGivenFloor) {
  EXPECT_EQ(at::recommend(kSweep, Objective::efficiency_floor, 0.9).id, "r2");
  const at::Recommendation low = at::recommend(kSweep, Objective::efficiency_floor, 0.4);
  EXPECT_EQ(low.id, "r16");
  EXPECT_TRUE(matches(low.sentence, "highest throughput of the 5 ok configurations"))
      << low.sentence;
  const at::Recommendation none = at::recommend(kSweep, Objective::efficiency_floor, 1.5);
  EXPECT_FALSE(none.id.has_value());
  EXPECT_EQ(none.sentence,
            "no ok configuration reaches scaling efficiency 1.50; the fastest, r16, is 0.50 "
            "efficient");
  // One ok configuration: the count is singular.
  const std::vector<at::ConfigMetrics> single = {ok("r1", 1, 1000)};
  EXPECT_EQ(at::recommend(single, Objective::efficiency_floor).sentence,
            "r1 gives 1,000 samples/s at scaling efficiency 1.00 (>= 0.70), the highest "
            "throughput of the 1 ok configuration.");
}

TEST(AutotuneRecommend, ThroughputPicksTheFastest) {
  const at::Recommendation r = at::recommend(kSweep, Objective::throughput);
  EXPECT_EQ(r.id, "r16");
  EXPECT_TRUE(matches(r.sentence,
                      "^r16 gives the highest throughput, 8,000 samples/s on 16 ranks "
                      "\\(scaling efficiency 0\\.50\\); the next, r8, gives 5,600"))
      << r.sentence;
}

TEST(AutotuneRecommend, EfficiencyPicksTheHighestThroughputPerRankAndFewerRanksOnATie) {
  const at::Recommendation r = at::recommend(kSweep, Objective::efficiency);
  EXPECT_EQ(r.id, "r1");
  EXPECT_TRUE(matches(r.sentence,
                      "1,000 samples/s per rank on 1 rank.*r16, gives 8,000 samples/s "
                      "but only 500 samples/s per rank"))
      << r.sentence;
  // Linear scaling: 2 ranks give exactly twice 1 rank's throughput; the tie goes to 1 rank,
  // whichever comes first.
  const std::vector<at::ConfigMetrics> tie = {ok("r2", 2, 2000), ok("r1", 1, 1000)};
  EXPECT_EQ(at::recommend(tie, Objective::efficiency).id, "r1");
  EXPECT_EQ(at::recommend(tie, Objective::throughput).id, "r2");
}

TEST(AutotuneRecommend, NoOkConfigurationGivesAMessageNotACrash) {
  // Failed: oom, timeout and error; skipped ones are counted apart.
  const std::vector<at::ConfigMetrics> none_ok = {
      failed("r8", 8, rs::Status::oom), failed("r16", 16, rs::Status::timeout),
      failed("r32", 32, rs::Status::error), failed("r64", 64, rs::Status::skipped)};
  for (Objective o : {Objective::efficiency_floor, Objective::throughput, Objective::efficiency}) {
    const at::Recommendation r = at::recommend(none_ok, o);
    EXPECT_FALSE(r.id.has_value());
    EXPECT_EQ(r.sentence, "no configuration finished ok (3 failed, 1 skipped)");
  }
  const at::Recommendation empty =
      at::recommend(std::vector<at::ConfigMetrics>{}, Objective::throughput);
  EXPECT_FALSE(empty.id);
  EXPECT_EQ(empty.sentence, "no configuration finished ok (0 failed, 0 skipped)");
}

TEST(AutotuneRecommend, ObjectiveNamesRoundTripAndUnknownNamesListTheValidOnes) {
  for (Objective o : {Objective::efficiency_floor, Objective::throughput, Objective::efficiency})
    EXPECT_EQ(at::objective_from_string(at::to_string(o)), o);
  try {
    at::objective_from_string("fastest");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown objective 'fastest'; valid names are efficiency_floor, throughput, "
                 "efficiency");
  }
}

namespace {

std::vector<std::string> ids_of(const std::vector<const at::ConfigMetrics*>& order) {
  std::vector<std::string> ids;
  for (const at::ConfigMetrics* m : order) ids.push_back(m->id);
  return ids;
}

}  // namespace

TEST(AutotuneRecommend, ObjectiveOrderRanksOkConfigurationsWithTheRecommendationFirst) {
  using V = std::vector<std::string>;
  // Floor 0.70: r8 (0.70), r4, r2, r1 reach it, by throughput; r16 (0.50) comes after them.
  EXPECT_EQ(ids_of(at::objective_order(kSweep, Objective::efficiency_floor)),
            (V{"r8", "r4", "r2", "r1", "r16"}));
  // Floor 0.9: r2 and r1 reach it; the rest follow by throughput.
  EXPECT_EQ(ids_of(at::objective_order(kSweep, Objective::efficiency_floor, 0.9)),
            (V{"r2", "r1", "r16", "r8", "r4"}));
  EXPECT_EQ(ids_of(at::objective_order(kSweep, Objective::throughput)),
            (V{"r16", "r8", "r4", "r2", "r1"}));
  // Per rank: 1000, 950, 850, 700, 500.
  EXPECT_EQ(ids_of(at::objective_order(kSweep, Objective::efficiency)),
            (V{"r1", "r2", "r4", "r8", "r16"}));
  for (Objective o : {Objective::efficiency_floor, Objective::throughput, Objective::efficiency})
    EXPECT_EQ(at::objective_order(kSweep, o).front()->id, at::recommend(kSweep, o).id);
  // Ties go to fewer ranks, as recommend's.
  const std::vector<at::ConfigMetrics> tie = {ok("r2", 2, 2000), ok("r1", 1, 1000)};
  EXPECT_EQ(ids_of(at::objective_order(tie, Objective::efficiency)), (V{"r1", "r2"}));
}
