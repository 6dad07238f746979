// The typed values of job-file options: each text is the spelling job files use (README.md's
// job-key table), the readers accept exactly the documented forms, and state shardings and
// index distributions read back as what they print.

#include "harness/job/option_values.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace scaletune::job {
namespace {

TEST(OptionText, EveryEnumeratorHasItsJobFileSpelling) {
  EXPECT_EQ(data_type_text(DataType::fp32), "fp32");
  EXPECT_EQ(data_type_text(DataType::fp64), "fp64");
  EXPECT_EQ(data_type_text(DataType::fp16), "fp16");
  EXPECT_EQ(data_type_text(DataType::bf16), "bf16");
  EXPECT_EQ(data_type_text(DataType::int32), "int32");
  EXPECT_EQ(data_type_text(DataType::int64), "int64");
  EXPECT_EQ(reduction_op_text(ReductionOp::sum), "sum");
  EXPECT_EQ(reduction_op_text(ReductionOp::avg), "avg");
  std::vector<std::string_view> ops;
  for (const CollectiveOp op : kCollectiveOps) ops.push_back(collective_op_text(op));
  EXPECT_EQ(ops,
            (std::vector<std::string_view>{"all_reduce", "reduce_scatter", "all_gather",
                                           "all_gatherv", "alltoall", "alltoallv", "broadcast"}));
  EXPECT_EQ(bag_size_text(BagSizeLaw::poisson), "poisson");
  EXPECT_EQ(bag_size_text(BagSizeLaw::fixed), "fixed");
  EXPECT_EQ(embedding_optimizer_text(EmbeddingOptimizer::sgd), "sgd");
  EXPECT_EQ(embedding_optimizer_text(EmbeddingOptimizer::rowwise_adagrad), "rowwise_adagrad");
  EXPECT_EQ(shard_split_text(ShardSplit::table_wise), "table_wise");
  EXPECT_EQ(shard_split_text(ShardSplit::row_wise), "row_wise");
  EXPECT_EQ(shard_split_text(ShardSplit::column_wise), "column_wise");
  EXPECT_EQ(shard_split_text(ShardSplit::data_parallel), "data_parallel");
  EXPECT_EQ(comm_backend_text(CommBackend::mpi), "mpi");
  EXPECT_EQ(comm_backend_text(CommBackend::nccl), "nccl");
  EXPECT_EQ(comm_backend_text(CommBackend::auto_select), "auto");
  EXPECT_EQ(device_kind_request_text(DeviceKindRequest::auto_select), "auto");
  EXPECT_EQ(device_kind_request_text(DeviceKindRequest::host), "host");
  EXPECT_EQ(device_kind_request_text(DeviceKindRequest::cuda), "cuda");
}

TEST(OptionText, TrainingPrecisionsAreTheThreeFloatFormats) {
  EXPECT_EQ(kTrainingPrecisions,
            (std::array<DataType, 3>{DataType::fp32, DataType::fp16, DataType::bf16}));
  EXPECT_EQ(kCollectiveDtypes.size(), 6u);
}

TEST(Sharding, SchemesAndPlansPrintAsTheJobWritesThem) {
  std::vector<std::string> texts;
  for (const ShardingScheme scheme : kShardingSchemes) texts.push_back(sharding_text({scheme, ""}));
  EXPECT_EQ(texts,
            (std::vector<std::string>{"data_parallel", "table_wise", "table_wise:size_greedy",
                                      "table_wise:lookup_greedy", "table_wise:size_lookup_greedy",
                                      "table_wise:norm_lookup_greedy", "table_wise:random",
                                      "row_wise", "column_wise"}));
  EXPECT_EQ(sharding_text({ShardingScheme::explicit_plan, "hot_tables"}), "hot_tables");
}

TEST(StateSharding, EveryJobValueRoundTrips) {
  const std::vector<std::string> written = {"replicated",
                                            "zero1",
                                            "zero2",
                                            "zero3",
                                            "zero1:memory_proportional",
                                            "zero2:memory_proportional",
                                            "zero3:memory_proportional",
                                            "auto"};
  ASSERT_EQ(kStateShardings.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(written[i]);
    EXPECT_EQ(state_sharding_text(kStateShardings[i]), written[i]);
    const std::optional<StateSharding> read = state_sharding_from_text(written[i]);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(*read, kStateShardings[i]);
    EXPECT_EQ(read->automatic, written[i] == "auto");
    EXPECT_EQ(read->memory_proportional,
              written[i].ends_with(":memory_proportional") || written[i] == "auto");
  }
}

TEST(StateSharding, StagesInOrder) {
  EXPECT_EQ(state_sharding_from_text("replicated")->stage, ZeroStage::replicated);
  EXPECT_EQ(state_sharding_from_text("zero1")->stage, ZeroStage::zero1);
  EXPECT_EQ(state_sharding_from_text("zero2:memory_proportional")->stage, ZeroStage::zero2);
  EXPECT_EQ(state_sharding_from_text("zero3")->stage, ZeroStage::zero3);
  EXPECT_EQ(state_sharding_from_text("auto")->stage, ZeroStage::zero3);  // shards by memory
  EXPECT_EQ(stage_name(ZeroStage::replicated), "replicated");
  EXPECT_EQ(stage_name(ZeroStage::zero3), "zero3");
}

// A plan's chosen sharding is never automatic: it prints as the stage the planner took.
TEST(StateSharding, ChosenShardingPrintsAsItsStage) {
  EXPECT_EQ(state_sharding_text({ZeroStage::zero2, true, false}), "zero2:memory_proportional");
  EXPECT_EQ(state_sharding_text({ZeroStage::replicated, true, false}), "replicated");
  EXPECT_EQ(state_sharding_text({ZeroStage::zero1, false, true}), "auto");
}

TEST(StateSharding, RejectsOtherValues) {
  for (const char* bad : {"replicated:memory_proportional", "zero4", "Zero1", "zero1:", "",
                          "zero1:memory", "zero2:memory_proportional:memory_proportional",
                          "auto:memory_proportional", " zero1", "ddp"})
    EXPECT_EQ(state_sharding_from_text(bad), std::nullopt) << bad;
}

TEST(IndexDistribution, ReadsUniformAndZipf) {
  EXPECT_EQ(index_distribution_from_text("uniform"), (IndexDistribution{IndexLaw::uniform, 0.0}));
  const auto zipf = index_distribution_from_text("zipf:1.05");
  ASSERT_TRUE(zipf.has_value());
  EXPECT_EQ(zipf->law, IndexLaw::zipf);
  EXPECT_DOUBLE_EQ(zipf->zipf_alpha, 1.05);
  EXPECT_DOUBLE_EQ(index_distribution_from_text("zipf:2")->zipf_alpha, 2.0);
  EXPECT_DOUBLE_EQ(index_distribution_from_text("zipf:0.8")->zipf_alpha, 0.8);
  EXPECT_DOUBLE_EQ(index_distribution_from_text("zipf:1e-3")->zipf_alpha, 0.001);
}

TEST(IndexDistribution, RejectsEverythingElse) {
  for (const char* text : {"", "Uniform", "normal", "zipf", "zipf:", "zipf:0", "zipf:-1",
                           "zipf:nan", "zipf:inf", "zipf:1.05x", "zipf: 1", "zipf:1,5", "zipf:+1"})
    EXPECT_EQ(index_distribution_from_text(text), std::nullopt) << text;
}

// The text is the shortest decimal that reads back as the same exponent: what job files write
// in their usual forms, and one canonical spelling for the others.
TEST(IndexDistribution, PrintsTheShortestRoundTripForm) {
  for (const char* text : {"uniform", "zipf:1.05", "zipf:2", "zipf:0.8", "zipf:1.1", "zipf:0.5"})
    EXPECT_EQ(index_distribution_text(index_distribution_from_text(text).value()), text);
  EXPECT_EQ(index_distribution_text(index_distribution_from_text("zipf:1e-3").value()),
            "zipf:0.001");
  EXPECT_EQ(index_distribution_text(index_distribution_from_text("zipf:2.50").value()), "zipf:2.5");
  EXPECT_EQ(index_distribution_text({IndexLaw::zipf, 0.1 + 0.2}), "zipf:0.30000000000000004");
}

}  // namespace
}  // namespace scaletune::job
