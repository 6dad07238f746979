// Sweep expansion: order, counts, per-rank batches and configuration ids, checked against a
// naive nested-loop reference written here; kind "collectives" sweeps ranks only.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/job/collective_sizes.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"

namespace {

using scaletune::job::Config;
using scaletune::job::config_id;
using scaletune::job::data_type_text;
using scaletune::job::DataType;
using scaletune::job::expand_sweep;
using scaletune::job::JobSpec;
using scaletune::job::parse_job_text;

JobSpec job_with_sweep(const std::string& sweep_lines) {
  return parse_job_text(
      "[job]\nname = \"s\"\n[workload]\nkind = \"resnet50\"\n[sweep]\n" + sweep_lines,
      "sweep.toml");
}

TEST(ExpandSweep, EvenSweepIsTheProductWithRanksOutermost) {
  const std::vector<int> ranks = {1, 2, 4};
  const std::vector<int> batches = {8, 16};
  const JobSpec job = job_with_sweep("ranks = [1, 2, 4]\nglobal_batch = [8, 16]\n");
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), ranks.size() * batches.size());
  std::size_t i = 0;
  for (const int r : ranks) {
    for (const int b : batches) {
      const Config& c = configs[i++];
      SCOPED_TRACE(c.id);
      EXPECT_EQ(c.workload, "resnet50");
      EXPECT_EQ(c.ranks, r);
      EXPECT_EQ(c.global_batch, b);
      EXPECT_EQ(c.batch_split, "even");
      EXPECT_EQ(c.precision, DataType::fp32);
      EXPECT_EQ(c.per_rank_batch, std::vector<int>(static_cast<std::size_t>(r), b / r));
      EXPECT_EQ(c.id, "resnet50-r" + std::to_string(r) + "-b" + std::to_string(b) + "-even-fp32");
    }
  }
}

TEST(ExpandSweep, WeightListsOnlyMeetTheirRankCount) {
  const JobSpec job = job_with_sweep(
      "ranks = [1, 3]\nglobal_batch = [96, 192]\nbatch_split = [\"even\", [0.5, 0.25, 0.25]]\n");
  const std::vector<Config> configs = expand_sweep(job);
  // ranks 1: even only (x2 batches); ranks 3: even and the weights (x2 batches).
  const std::vector<std::string> ids = {
      "resnet50-r1-b96-even-fp32",  "resnet50-r1-b192-even-fp32",
      "resnet50-r3-b96-even-fp32",  "resnet50-r3-b96-w0.5_0.25_0.25-fp32",
      "resnet50-r3-b192-even-fp32", "resnet50-r3-b192-w0.5_0.25_0.25-fp32"};
  ASSERT_EQ(configs.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(configs[i].id, ids[i]);
  // Weights whose shares of the batch are whole numbers: rank i gets batch * w_i / sum(w).
  const Config& weighted = configs[3];
  EXPECT_EQ(weighted.batch_split, "0.5,0.25,0.25");
  EXPECT_EQ(weighted.per_rank_batch, (std::vector<int>{48, 24, 24}));
  EXPECT_EQ(configs[5].per_rank_batch, (std::vector<int>{96, 48, 48}));
}

TEST(ExpandSweep, UnevenSplitSumsToTheGlobalBatch) {
  const JobSpec job =
      job_with_sweep("ranks = [2]\nglobal_batch = [7, 10]\nbatch_split = [[3, 1]]\n");
  for (const Config& c : expand_sweep(job)) {
    SCOPED_TRACE(c.id);
    ASSERT_EQ(c.per_rank_batch.size(), 2u);
    EXPECT_EQ(std::accumulate(c.per_rank_batch.begin(), c.per_rank_batch.end(), 0), c.global_batch);
    // Each part is within one sample of its exact share, batch * w / sum(w).
    EXPECT_NEAR(c.per_rank_batch[0], c.global_batch * 0.75, 1.0);
    EXPECT_GT(c.per_rank_batch[0], c.per_rank_batch[1]);
  }
}

TEST(ExpandSweep, HugeWeightsSplitByTheirRatio) {
  // 8e307:8e307 is 1:1; batch * weight would overflow, the share weight / sum does not.
  const JobSpec job = job_with_sweep(
      "ranks = [2]\nglobal_batch = [8, 1073741824]\nbatch_split = [[8e307, 8e307]]\n");
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].per_rank_batch, (std::vector<int>{4, 4}));
  EXPECT_EQ(configs[1].per_rank_batch, (std::vector<int>{1 << 29, 1 << 29}));
}

TEST(ExpandSweep, IdsAreDistinctAndFitAnHdf5GroupName) {
  const JobSpec job = job_with_sweep(
      "ranks = [1, 2, 4]\nglobal_batch = [8, 16]\nbatch_split = [\"even\", [3, 1], [1, 3]]\n");
  const std::vector<Config> configs = expand_sweep(job);
  std::set<std::string> ids;
  for (const Config& c : configs) {
    EXPECT_EQ(c.id.find('/'), std::string::npos) << c.id;
    EXPECT_EQ(c.id.find(' '), std::string::npos) << c.id;
    ids.insert(c.id);
  }
  EXPECT_EQ(ids.size(), configs.size());
  EXPECT_EQ(configs.size(), 3u * 2u + 2u * 2u);
}

TEST(ConfigId, MatchesTheDocumentedExamples) {
  Config even{.id = "",
              .workload = "resnet50",
              .ranks = 4,
              .global_batch = 256,
              .batch_split = "even",
              .per_rank_batch = {64, 64, 64, 64},
              .precision = DataType::fp32,
              .sharding = {}};
  EXPECT_EQ(config_id(even), "resnet50-r4-b256-even-fp32");
  Config weighted{.id = "",
                  .workload = "resnet50",
                  .ranks = 3,
                  .global_batch = 96,
                  .batch_split = "0.5,0.25,0.25",
                  .per_rank_batch = {48, 24, 24},
                  .precision = DataType::fp32,
                  .sharding = {}};
  EXPECT_EQ(config_id(weighted), "resnet50-r3-b96-w0.5_0.25_0.25-fp32");
}

TEST(ConfigId, IsStableAndChangesWithEverySweptKey) {
  const Config base{.id = "",
                    .workload = "resnet50",
                    .ranks = 2,
                    .global_batch = 64,
                    .batch_split = "even",
                    .per_rank_batch = {32, 32},
                    .precision = DataType::fp32,
                    .sharding = {}};
  EXPECT_EQ(config_id(base), config_id(Config(base)));
  Config other = base;
  other.ranks = 4;
  EXPECT_NE(config_id(other), config_id(base));
  other = base;
  other.global_batch = 128;
  EXPECT_NE(config_id(other), config_id(base));
  other = base;
  other.batch_split = "1,1";
  EXPECT_NE(config_id(other), config_id(base));
  other = base;
  other.precision = DataType::bf16;
  EXPECT_NE(config_id(other), config_id(base));
  other = base;
  other.workload = "dlrm";
  EXPECT_NE(config_id(other), config_id(base));
  other = base;
  other.sharding = scaletune::job::DlrmSharding{scaletune::job::ShardingScheme::table_wise, ""};
  EXPECT_NE(config_id(other), config_id(base));
  other.sharding = scaletune::job::StateSharding{};  // replicated
  EXPECT_NE(config_id(other), config_id(base));
}

TEST(SplitApplies, EvenEverywhereWeightsAtTheirLength) {
  const JobSpec job =
      job_with_sweep("ranks = [1, 2]\nglobal_batch = [6]\nbatch_split = [\"even\", [2, 1]]\n");
  EXPECT_TRUE(scaletune::job::split_applies(job.sweep, 0, 1));
  EXPECT_TRUE(scaletune::job::split_applies(job.sweep, 0, 7));
  EXPECT_FALSE(scaletune::job::split_applies(job.sweep, 1, 1));
  EXPECT_TRUE(scaletune::job::split_applies(job.sweep, 1, 2));
  EXPECT_EQ(scaletune::job::per_rank_batch(job.sweep, 1, 6, 2), (std::vector<int>{4, 2}));
  EXPECT_EQ(scaletune::job::per_rank_batch(job.sweep, 0, 6, 2), (std::vector<int>{3, 3}));
  EXPECT_THROW(scaletune::job::per_rank_batch(job.sweep, 1, 6, 3), std::invalid_argument);
  EXPECT_THROW(scaletune::job::per_rank_batch(job.sweep, 0, 7, 2), std::invalid_argument);
}

TEST(ExpandSweep, ShippedCpuJobGivesFourSmallConfigurations) {
  const JobSpec job =
      scaletune::job::parse_job_file(std::string(SCALETUNE_SOURCE_DIR) + "/jobs/resnet50-cpu.toml");
  EXPECT_EQ(job.workload.resnet50.image_size, 64);
  EXPECT_DOUBLE_EQ(job.workload.resnet50.width, 0.25);
  EXPECT_EQ(job.workload.resnet50.num_classes, 100);
  EXPECT_EQ(job.job.output, "results/resnet50-cpu.h5");
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 4u);
  EXPECT_EQ(configs.front().id, "resnet50-r1-b16-even-fp32");
  EXPECT_EQ(configs.back().id, "resnet50-r2-b32-even-fp32");
  EXPECT_EQ(configs.back().per_rank_batch, (std::vector<int>{16, 16}));
}

TEST(ExpandSweep, ShippedScalingJobCoversOneToSixtyFourRanks) {
  const JobSpec job =
      scaletune::job::parse_job_file(std::string(SCALETUNE_SOURCE_DIR) + "/jobs/resnet50.toml");
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 7u * 2u);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const int ranks = 1 << (i / 2);
    EXPECT_EQ(configs[i].ranks, ranks);
    EXPECT_EQ(configs[i].per_rank_batch,
              std::vector<int>(static_cast<std::size_t>(ranks), configs[i].global_batch / ranks));
  }
}

// ---- kind "collectives": ranks only --------------------------------------------------------

JobSpec collectives_job(const std::string& workload_lines, const std::string& ranks) {
  return parse_job_text("[job]\nname = \"c\"\n[workload]\nkind = \"collectives\"\n" +
                            workload_lines + "[sweep]\nranks = " + ranks + "\n",
                        "collectives.toml");
}

TEST(ExpandSweep, CollectivesGiveOneConfigurationPerRanksValueInListedOrder) {
  const std::vector<int> ranks = {4, 1, 2};
  const std::vector<Config> configs =
      expand_sweep(collectives_job("dtype = \"bf16\"\n", "[4, 1, 2]"));
  ASSERT_EQ(configs.size(), ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const Config& c = configs[i];
    SCOPED_TRACE(c.id);
    EXPECT_EQ(c.workload, "collectives");
    EXPECT_EQ(c.ranks, ranks[i]);
    EXPECT_EQ(c.global_batch, 1);  // one sample: one pass over every op and size
    EXPECT_EQ(c.batch_split, "none");
    EXPECT_TRUE(c.per_rank_batch.empty());
    EXPECT_EQ(c.precision, DataType::bf16);
    EXPECT_EQ(c.id, "collectives-r" + std::to_string(ranks[i]) + "-bf16");
  }
}

TEST(ExpandSweep, CollectivesPrecisionIsTheDtype) {
  for (const std::string dtype : {"fp32", "fp64", "fp16", "bf16", "int32", "int64"}) {
    SCOPED_TRACE(dtype);
    const std::vector<Config> configs =
        expand_sweep(collectives_job("dtype = \"" + dtype + "\"\n", "[8]"));
    ASSERT_EQ(configs.size(), 1u);
    EXPECT_EQ(data_type_text(configs[0].precision), dtype);
    EXPECT_EQ(configs[0].id, "collectives-r8-" + dtype);
  }
}

TEST(ConfigId, CollectivesMatchTheDocumentedExample) {
  const Config collectives{.id = "",
                           .workload = "collectives",
                           .ranks = 8,
                           .global_batch = 1,
                           .batch_split = "none",
                           .per_rank_batch = {},
                           .precision = DataType::fp32,
                           .sharding = {}};
  EXPECT_EQ(config_id(collectives), "collectives-r8-fp32");
  Config other = collectives;
  other.ranks = 16;
  EXPECT_EQ(config_id(other), "collectives-r16-fp32");
  other = collectives;
  other.precision = DataType::int64;
  EXPECT_EQ(config_id(other), "collectives-r8-int64");
}

TEST(ExpandSweep, ShippedCollectivesCpuJobIsSmall) {
  const JobSpec job = scaletune::job::parse_job_file(std::string(SCALETUNE_SOURCE_DIR) +
                                                     "/jobs/collectives-cpu.toml");
  EXPECT_EQ(job.comm.backend, scaletune::job::CommBackend::mpi);
  EXPECT_EQ(job.workload.collectives.ops.size(), 7u);
  // 8 B to 64 KiB by 4: 8, 32, 128, 512, 2048, 8192, 32768.
  EXPECT_EQ(scaletune::job::collective_sizes(job.workload.collectives),
            (std::vector<std::int64_t>{8, 32, 128, 512, 2048, 8192, 32768}));
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].id, "collectives-r1-fp32");
  EXPECT_EQ(configs[1].id, "collectives-r2-fp32");
}

TEST(ExpandSweep, ShippedCollectivesJobCoversTwoToSixtyFourGpus) {
  const JobSpec job =
      scaletune::job::parse_job_file(std::string(SCALETUNE_SOURCE_DIR) + "/jobs/collectives.toml");
  EXPECT_EQ(job.comm.backend, scaletune::job::CommBackend::nccl);
  EXPECT_EQ(job.workload.collectives.dtype, DataType::fp32);
  // 1 B to 1 GiB by 2: 2^0 .. 2^30.
  const std::vector<std::int64_t> sizes =
      scaletune::job::collective_sizes(job.workload.collectives);
  ASSERT_EQ(sizes.size(), 31u);
  EXPECT_EQ(sizes.front(), 1);
  EXPECT_EQ(sizes.back(), std::int64_t{1} << 30);
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 6u);
  for (std::size_t i = 0; i < configs.size(); ++i) EXPECT_EQ(configs[i].ranks, 2 << i);
}

}  // namespace

namespace {

/// "[a, a + 1, ...]": `n` consecutive values from `first`.
std::string consecutive(int first, int n) {
  std::string list = "[";
  for (int i = 0; i < n; ++i) list += (i == 0 ? "" : ", ") + std::to_string(first + i);
  return list + "]";
}

/// The JobError of a [sweep] with these lines, or a test failure.
scaletune::job::JobError sweep_error(const std::string& sweep_lines) {
  try {
    job_with_sweep(sweep_lines);
  } catch (const scaletune::job::JobError& e) {
    return e;
  }
  ADD_FAILURE() << "no JobError for:\n" << sweep_lines;
  return scaletune::job::JobError("", 0, 0, "", "");
}

}  // namespace

// Found by fuzzing: 11 KB of job file (5 rank counts of up to 2^20 x 1023 batches) made plan
// split 2.6 billion per-rank batches and run out of memory; a sweep this large is refused.
TEST(ExpandSweep, SweepsTooLargeToHoldAreRefusedAtRanks) {
  const scaletune::job::JobError wide = sweep_error(
      "ranks = " + consecutive(1, 400) + "\nglobal_batch = " + consecutive(1 << 20, 300) +
      "\nbatch_split = [\"even\"]\nprecision = [\"fp32\"]\n");
  EXPECT_EQ(wide.line(), 6);
  EXPECT_EQ(wide.key(), "ranks");
  EXPECT_EQ(wide.message(),
            "the sweep expands into 120000 configurations (the product of its lists); expected "
            "at most 100000; split the sweep over several job files");
  const scaletune::job::JobError deep =
      sweep_error("ranks = [1048576, 524288]\nglobal_batch = " + consecutive(1 << 20, 11) + "\n");
  EXPECT_EQ(deep.key(), "ranks");
  EXPECT_EQ(deep.message(),
            "the sweep's configurations hold 17301504 per-rank batches (the sum of their rank "
            "counts); expected at most 16777216; split the sweep over several job files");
  // Within both limits: a configuration of 2^20 ranks.
  const auto configs =
      expand_sweep(job_with_sweep("ranks = [1048576]\nglobal_batch = " + consecutive(1 << 20, 1) +
                                  "\nprecision = [\"fp32\"]\n"));
  EXPECT_EQ(configs.size(), 1u);
}
