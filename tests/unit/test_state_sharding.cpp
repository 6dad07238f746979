// [sweep] state_sharding values: every value the job layer accepts parses and prints back as
// written ("auto" as the automatic choice); anything else is rejected naming the value.

#include "kernels/transformer/state_sharding.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "harness/job/job.hpp"

namespace scaletune::kernels {
namespace {

TEST(StateSharding, EveryJobValueRoundTrips) {
  for (const std::string_view value : job::kStateShardings) {
    SCOPED_TRACE(std::string(value));
    const StateSharding sharding = parse_state_sharding(value);
    if (value == "auto") {
      EXPECT_TRUE(sharding.automatic);
      EXPECT_TRUE(sharding.memory_proportional);  // auto shards by memory
      continue;
    }
    EXPECT_FALSE(sharding.automatic);
    EXPECT_EQ(sharding.memory_proportional, value.ends_with(":memory_proportional"));
    EXPECT_EQ(state_sharding_text(sharding), value);
    EXPECT_EQ(value.substr(0, value.find(':')), stage_name(sharding.stage));
  }
}

TEST(StateSharding, StagesInOrder) {
  EXPECT_EQ(parse_state_sharding("replicated").stage, ZeroStage::replicated);
  EXPECT_EQ(parse_state_sharding("zero1").stage, ZeroStage::zero1);
  EXPECT_EQ(parse_state_sharding("zero2:memory_proportional").stage, ZeroStage::zero2);
  EXPECT_EQ(parse_state_sharding("zero3").stage, ZeroStage::zero3);
  EXPECT_EQ(stage_name(ZeroStage::replicated), "replicated");
  EXPECT_EQ(stage_name(ZeroStage::zero3), "zero3");
}

TEST(StateSharding, ChosenAutomaticShardingPrintsAsItsStage) {
  EXPECT_EQ(state_sharding_text({ZeroStage::zero2, true, true}), "zero2:memory_proportional");
  EXPECT_EQ(state_sharding_text({ZeroStage::replicated, false, true}), "replicated");
}

TEST(StateSharding, RejectsOtherValuesNamingThem) {
  for (const char* bad : {"replicated:memory_proportional", "zero4", "Zero1", "zero1:", "",
                          "zero1:memory", "zero2:memory_proportional:memory_proportional",
                          "auto:memory_proportional", " zero1", "ddp"}) {
    try {
      parse_state_sharding(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace scaletune::kernels
