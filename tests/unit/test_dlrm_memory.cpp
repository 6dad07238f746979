// The DLRM memory estimate against what the workload really takes: from the heap (glibc's
// mallinfo2: bytes in use in the arenas plus mmapped blocks) and, for the large tables, from the
// kernel (the mappings advised for huge pages, /proc/self/smaps VmFlags "hg"), for every plan
// and several ranks of a group; and a plan over the rank's budget fails as oom before
// allocating the model.
#include <gtest/gtest.h>
#include <malloc.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/core/memory_budget.hpp"
#include "kernels/dlrm/dlrm.hpp"
#include "tests/support/fake_communicator.hpp"
#include "tests/support/sanitizers.hpp"

namespace scaletune::kernels {
namespace {

// Sum of the sizes of this process's mappings advised with MADV_HUGEPAGE, bytes.
std::int64_t huge_page_mappings() {
  std::ifstream smaps("/proc/self/smaps");
  std::int64_t total = 0, size_kib = 0;
  for (std::string line; std::getline(smaps, line);) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "Size:") fields >> size_kib;
    if (key == "VmFlags:" && (" " + line + " ").find(" hg ") != std::string::npos)
      total += size_kib * 1024;
  }
  return total;
}

constexpr const char* kNoGlibcHeap = "mallinfo2 does not see its heap";

std::int64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<std::int64_t>(m.uordblks + m.hblkhd) + huge_page_mappings();
}

// A group of one: the collectives move this rank's data to itself.
class SoloCommunicator : public testing_support::FakeCommunicator {
 public:
  SoloCommunicator() : FakeCommunicator(0, 1) {}
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp) override {
    std::memmove(recv, send, count * core::dtype_bytes(type));
  }
  void all_to_all(const void* send, void* recv, std::size_t count, core::DType type) override {
    std::memmove(recv, send, count * core::dtype_bytes(type));
  }
  void barrier() override {}
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t>, core::DType type) override {
    std::memmove(recv, send, send_counts[0] * core::dtype_bytes(type));
  }
};

job::DlrmOptions medium_options() {
  job::DlrmOptions o;
  const std::vector<std::int64_t> rows = {120000, 40000, 90000, 5};
  for (std::size_t t = 0; t < rows.size(); ++t)
    o.tables.push_back({.name = "t" + std::to_string(t), .rows = rows[t], .dim = 32, .pooling = 6});
  o.bottom_mlp = {64, 32};
  o.top_mlp = {64, 1};
  o.embedding_optimizer = job::EmbeddingOptimizer::rowwise_adagrad;
  return o;
}

job::Config config(job::ShardingScheme scheme, const std::vector<int>& batch,
                   job::DataType precision = job::DataType::fp32) {
  return {.id = "",
          .workload = "dlrm",
          .ranks = static_cast<int>(batch.size()),
          .global_batch = 0,
          .batch_split = "",
          .per_rank_batch = batch,
          .precision = precision,
          .sharding = job::DlrmSharding{scheme, ""}};
}

core::RankContext context(core::Communicator& comm, const std::vector<int>& batch) {
  core::RankContext ctx;
  ctx.comm = &comm;
  ctx.per_rank_batch = batch[static_cast<std::size_t>(comm.rank())];
  ctx.global_batch = 0;
  for (const int b : batch) ctx.global_batch += b;
  ctx.seed = 5;
  return ctx;
}

void expect_within_5_percent(std::int64_t measured, std::int64_t estimate,
                             const std::string& what) {
  const double ratio = static_cast<double>(estimate) / static_cast<double>(measured);
  std::printf("%s: estimate %lld B / allocated %lld B = %.4f\n", what.c_str(),
              static_cast<long long>(estimate), static_cast<long long>(measured), ratio);
  EXPECT_NEAR(ratio, 1.0, 0.05) << what << ": estimate " << estimate << " B, heap grew by "
                                << measured << " B";
}

class EveryPlan : public ::testing::TestWithParam<job::ShardingScheme> {};

TEST_P(EveryPlan, EstimateMatchesTheHeapOfEachRankOfThree) {
  SCALETUNE_SKIP_UNDER_ASAN(kNoGlibcHeap);
  const std::vector<int> batch = {96, 64, 96};
  for (int rank = 0; rank < 3; ++rank) {
    testing_support::FakeCommunicator comm(rank, 3);
    const std::int64_t before = heap_in_use();
    const Dlrm model(medium_options(), config(GetParam(), batch), context(comm, batch));
    const std::int64_t grown = heap_in_use() - before;
    // No step has run: no sparse gradients yet.
    const DlrmMemory& m = model.memory_estimate();
    expect_within_5_percent(
        grown, m.resident() - m.sparse_gradients,
        std::string(job::sharding_scheme_text(GetParam())) + " rank " + std::to_string(rank));
  }
}

INSTANTIATE_TEST_SUITE_P(Dlrm, EveryPlan, ::testing::ValuesIn(job::kShardingSchemes),
                         [](const auto& param_info) {
                           std::string name(job::sharding_scheme_text(param_info.param));
                           std::ranges::replace(name, ':', '_');
                           return name;
                         });

TEST(DlrmMemory, EstimateMatchesTheHeapAfterAStepIncludingSparseGradients) {
  SCALETUNE_SKIP_UNDER_ASAN(kNoGlibcHeap);
  SoloCommunicator comm;
  const std::vector<int> batch = {256};
  const std::int64_t before = heap_in_use();
  Dlrm model(medium_options(), config(job::ShardingScheme::table_wise, batch),
             context(comm, batch));
  core::PhaseTimer timer(model.phase_names(), 1, [] { Kokkos::fence(); });
  model.step(timer);
  expect_within_5_percent(heap_in_use() - before, model.memory_estimate().resident(),
                          "after a step");
  EXPECT_GT(model.memory_estimate().sparse_gradients, 0);
  // The ledger counts the bytes asked for, the estimate the whole huge pages they take (the
  // heap above): the workload reports no more than the estimate.
  const std::int64_t made = model.memory_peak_bytes() - model.memory_estimate().backward_workspace;
  EXPECT_LE(made, model.memory_estimate().resident());
}

TEST(DlrmMemory, Bf16TablesTakeHalfTheTableBytesAndTheEstimateFollows) {
  SCALETUNE_SKIP_UNDER_ASAN(kNoGlibcHeap);
  testing_support::FakeCommunicator comm(1, 2);
  const std::vector<int> batch = {64, 64};
  const std::int64_t before = heap_in_use();
  const Dlrm bf16(medium_options(),
                  config(job::ShardingScheme::row_wise, batch, job::DataType::bf16),
                  context(comm, batch));
  expect_within_5_percent(
      heap_in_use() - before,
      bf16.memory_estimate().resident() - bf16.memory_estimate().sparse_gradients, "bf16 tables");
  const Dlrm fp32(medium_options(), config(job::ShardingScheme::row_wise, batch),
                  context(comm, batch));
  // row_wise on rank 1 of 2: 60000 + 20000 + 45000 + 3 rows of 32 values.
  const std::int64_t values = (60000 + 20000 + 45000 + 3) * 32;
  EXPECT_NEAR(static_cast<double>(bf16.memory_estimate().tables), values * 2.0, 2 << 21);
  EXPECT_NEAR(static_cast<double>(fp32.memory_estimate().tables), values * 4.0, 2 << 21);
}

TEST(DlrmMemory, APlanOverTheBudgetIsOomBeforeTheModelIsAllocated) {
  SoloCommunicator comm;
  const std::vector<int> batch = {64};
  core::RankContext ctx = context(comm, batch);
  std::int64_t need = 0;
  {
    const Dlrm probe(medium_options(), config(job::ShardingScheme::data_parallel, batch), ctx);
    need = probe.memory_estimate().total();
  }
  // Half the need: the estimate refuses. (Had the model been allocated, the buffer ledger would
  // have refused with its own message, after allocating the buffers that fitted.)
  ctx.memory_budget_bytes = need / 2;
  try {
    const Dlrm model(medium_options(), config(job::ShardingScheme::data_parallel, batch), ctx);
    FAIL() << "a plan needing " << need << " B ran in a budget of " << need / 2 << " B";
  } catch (const core::MemoryBudgetExceeded& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("sharding data_parallel needs", 0), 0u) << message;
    EXPECT_NE(message.find("tables"), std::string::npos) << message;
  }
}

TEST(DlrmMemory, AGlobalBatchWhoseLookupsAloneExceedTheBudgetIsOomBeforeTheyAreDrawn) {
  // 2^26 samples of 6 lookups in each of 4 tables: a table's draw alone is 7 x 8 x 2^26 bytes
  // (3.5 GiB), far above a 64 MiB budget; refused at once, before anything is drawn.
  SoloCommunicator comm;
  const std::vector<int> batch = {1 << 26};
  core::RankContext ctx = context(comm, batch);
  ctx.memory_budget_bytes = std::int64_t{64} << 20;
  const job::DlrmSharding sharding{job::ShardingScheme::table_wise, ""};
  const ShardingPlan plan = make_sharding_plan(sharding, medium_options(), 1);
  EXPECT_EQ(lookup_generation_bytes(medium_options(), plan, batch[0], 0),
            (std::int64_t{6} * batch[0] + batch[0] + 1) * 8);
  try {
    const Dlrm model(medium_options(), config(job::ShardingScheme::table_wise, batch), ctx);
    FAIL() << "a global batch of 2^26 samples fitted in 64 MiB";
  } catch (const core::MemoryBudgetExceeded& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the lookups of a global batch of 67108864 samples"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace scaletune::kernels
