// The plan text of `scaletune plan`: structure matched with regexes, values from the job.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "harness/job/job_format.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "tests/support/text_lines.hpp"

namespace {

using scaletune::job::format_plan;
using scaletune::job::JobSpec;

const std::string kJob = R"([job]
name = "plan-test"
[workload]
kind = "resnet50"
image_size = 64
width = 0.5
num_classes = 10
[sweep]
ranks = [1, 3]
global_batch = [24, 48]
batch_split = ["even", [2, 1, 1]]
)";

using scaletune::testing_support::lines_of;

std::vector<std::string> plan_lines(int world_size) {
  const JobSpec job = scaletune::job::parse_job_text(kJob, "plan.toml");
  return lines_of(format_plan(job, scaletune::job::expand_sweep(job), world_size));
}

bool matches(const std::string& line, const std::string& pattern) {
  return std::regex_match(line, std::regex(pattern));
}

TEST(FormatPlan, HeaderNamesJobWorkloadOptionsAndOutput) {
  const std::vector<std::string> lines = plan_lines(0);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            "job plan-test: workload resnet50 (image_size=64 width=0.5 num_classes=10 "
            "sync_batch_norm=false), output results/plan-test.h5");
}

TEST(FormatPlan, TableHasColumnsUnitsAndOneRowPerConfiguration) {
  const std::vector<std::string> lines = plan_lines(3);
  // header, column names, units, 2 + 4 configurations, total.
  ASSERT_EQ(lines.size(), 3u + 6u + 1u);
  EXPECT_TRUE(
      matches(lines[1], R"(#\s+id\s+ranks\s+global_batch\s+per_rank_batch\s+precision\s+runs)"))
      << lines[1];
  EXPECT_TRUE(matches(lines[2], R"(-\s+-\s+count\s+samples\s+samples/rank\s+-\s+-)")) << lines[2];
  EXPECT_TRUE(matches(lines[3], R"(0\s+resnet50-r1-b24-even-fp32\s+1\s+24\s+24x1\s+fp32\s+yes)"))
      << lines[3];
  EXPECT_TRUE(
      matches(lines[6], R"(3\s+resnet50-r3-b24-w2_1_1-fp32\s+3\s+24\s+12,6,6\s+fp32\s+yes)"))
      << lines[6];
  EXPECT_TRUE(
      matches(lines[8], R"(5\s+resnet50-r3-b48-w2_1_1-fp32\s+3\s+48\s+24,12,12\s+fp32\s+yes)"))
      << lines[8];
  EXPECT_EQ(lines[9], "total: 6 configurations, 6 run on 3 ranks, 0 skipped");
}

TEST(FormatPlan, ColumnsAreAligned) {
  const std::vector<std::string> lines = plan_lines(3);
  const std::size_t id_column = lines[1].find("id");
  const std::size_t runs_column = lines[1].find("runs");
  for (std::size_t i = 3; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find("resnet50-"), id_column) << lines[i];
    EXPECT_EQ(lines[i].rfind("yes"), runs_column) << lines[i];
  }
}

TEST(FormatPlan, RankCountsAboveTheWorldAreSkipped) {
  const std::vector<std::string> lines = plan_lines(2);
  for (std::size_t i = 3; i <= 4; ++i) EXPECT_TRUE(matches(lines[i], R"(.*\byes)")) << lines[i];
  for (std::size_t i = 5; i <= 8; ++i)
    EXPECT_TRUE(matches(lines[i], R"(.*\sskipped \(needs 3 ranks\))")) << lines[i];
  EXPECT_EQ(lines.back(), "total: 6 configurations, 2 run on 2 ranks, 4 skipped");
}

TEST(FormatPlan, OneConfigurationOnOneRankIsSingular) {
  const JobSpec job = scaletune::job::parse_job_text(
      "[job]\nname = \"one\"\n[workload]\nkind = \"resnet50\"\n[sweep]\nranks = [1]\n"
      "global_batch = [4]\n",
      "one.toml");
  const std::string text = format_plan(job, scaletune::job::expand_sweep(job), 1);
  EXPECT_NE(text.find("total: 1 configuration, 1 run on 1 rank, 0 skipped"), std::string::npos)
      << text;
}

TEST(FormatPlan, UnknownWorldRunsEverythingAndSaysSo) {
  const std::vector<std::string> lines = plan_lines(0);
  for (std::size_t i = 3; i + 1 < lines.size(); ++i)
    EXPECT_TRUE(matches(lines[i], R"(.*\syes)")) << lines[i];
  EXPECT_EQ(lines.back(), "total: 6 configurations; world size unknown (pass --world N)");
}

// ---- kind "collectives" --------------------------------------------------------------------

const std::string kCollectivesJob = R"([job]
name = "coll-plan"
[workload]
kind = "collectives"
ops = ["all_reduce", "broadcast"]
min_bytes = 8
max_bytes = 1024
dtype = "int32"
redop = "avg"
in_place = false
[sweep]
ranks = [1, 2, 4]
[comm]
backend = "nccl"
)";

std::vector<std::string> collectives_plan_lines(int world_size) {
  const JobSpec job = scaletune::job::parse_job_text(kCollectivesJob, "coll.toml");
  return lines_of(format_plan(job, scaletune::job::expand_sweep(job), world_size));
}

TEST(FormatPlan, CollectivesHeaderGivesOpsSizeRangeAndSizesPerOp) {
  const std::vector<std::string> lines = collectives_plan_lines(0);
  ASSERT_FALSE(lines.empty());
  // 8 B to 1 KiB by the default factor 2: 8, 16, ..., 1024 is 8 sizes.
  EXPECT_EQ(lines[0],
            "job coll-plan: workload collectives (ops=all_reduce,broadcast min_bytes=8 "
            "max_bytes=1024 step_factor=2 sizes_per_op=8 dtype=int32 redop=avg in_place=false), "
            "output results/coll-plan.h5");
}

TEST(FormatPlan, CollectivesRowsHaveOnePassPerStepAndNoPerRankBatch) {
  const std::vector<std::string> lines = collectives_plan_lines(2);
  // header, column names, units, 3 configurations, total.
  ASSERT_EQ(lines.size(), 3u + 3u + 1u);
  EXPECT_TRUE(matches(lines[3], R"(0\s+collectives-r1-int32\s+1\s+1\s+-\s+int32\s+yes)"))
      << lines[3];
  EXPECT_TRUE(matches(lines[4], R"(1\s+collectives-r2-int32\s+2\s+1\s+-\s+int32\s+yes)"))
      << lines[4];
  EXPECT_TRUE(matches(
      lines[5], R"(2\s+collectives-r4-int32\s+4\s+1\s+-\s+int32\s+skipped \(needs 4 ranks\))"))
      << lines[5];
  EXPECT_EQ(lines[6], "total: 3 configurations, 2 run on 2 ranks, 1 skipped");
}

}  // namespace
