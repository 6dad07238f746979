// Under mpirun: every batch split and state sharding of the transformer workload computes the
// step one rank computes on the whole batch. A reference GPT model (GptModel on all samples at
// once, then Adam) runs on every rank without communication; the sharded runs' global loss and
// whole parameter vector after each step must equal it (fp32 tolerance): for hand-made plans with
// uneven batches, micro-batches, accumulation and shards, and for the workload's own plans from
// every batch_split word and state_sharding value.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "harness/job/batch_split.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/transformer/gpt_init.hpp"
#include "kernels/transformer/token_batch.hpp"
#include "kernels/transformer/transformer.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

using test::world_rank;
using test::world_size;

constexpr int kGlobalBatch = 6;
constexpr int kSteps = 2;
constexpr std::uint64_t kSeed = 5;

job::TransformerOptions tiny_options() {
  job::TransformerOptions o;
  o.layers = 2, o.hidden = 8, o.heads = 2, o.seq_len = 4, o.vocab = 13, o.ffn_mult = 2;
  o.dropout = 0.1, o.learning_rate = 0.01;
  return o;
}

kernels::GptShape tiny_shape(int micro_batch) {
  const job::TransformerOptions o = tiny_options();
  return {
      o.layers,   o.hidden, o.heads, o.seq_len, o.vocab, o.ffn_mult, static_cast<float>(o.dropout),
      micro_batch};
}

// One rank, the whole batch in one micro-batch, plain Adam: losses and parameters after each step.
struct Reference {
  std::vector<double> loss;
  std::vector<std::vector<float>> params;
};

Reference reference_run(const kernels::AdamOptions& adam) {
  const kernels::GptShape shape = tiny_shape(kGlobalBatch);
  const auto n = static_cast<std::size_t>(kernels::GptModel::parameter_count(shape));
  kernels::HostBackend backend;
  ops::MemoryLedger ledger(backend);
  const auto count = static_cast<std::int64_t>(n);
  const ops::Tensor params = ledger.make("params", ops::DType::fp32, {count});
  const ops::Tensor grads = ledger.make("grads", ops::DType::fp32, {count});
  const ops::Tensor m = ledger.make("m", ops::DType::fp32, {count});
  const ops::Tensor v = ledger.make("v", ops::DType::fp32, {count});
  kernels::init_gpt_parameters(shape, kSeed, {params.as<float>(), n});
  kernels::GptModel model(shape, params, grads, ledger);
  const std::size_t rows = kGlobalBatch * static_cast<std::size_t>(shape.seq_len);
  std::vector<int> token_ids(rows), target_ids(rows);
  kernels::fill_token_batch(kSeed, 0, shape.seq_len, shape.vocab, token_ids, target_ids);
  const ops::Tensor tokens = ledger.make("tokens", ops::DType::int32, {std::int64_t(rows)});
  const ops::Tensor targets = ledger.make("targets", ops::DType::int32, {std::int64_t(rows)});
  ops::upload_ints(backend, tokens, token_ids);
  ops::upload_ints(backend, targets, target_ids);
  Reference ref;
  for (int s = 0; s < kSteps; ++s) {
    backend.fill(grads, 0.0f);
    ref.loss.push_back(model.forward_backward(tokens, targets, 1.0f / static_cast<float>(rows),
                                              {kSeed, static_cast<std::uint64_t>(s), 0}));
    backend.adam(params, grads, m, v, s + 1, adam, {});
    ref.params.push_back(ops::download_floats(backend, params));
  }
  return ref;
}

::testing::AssertionResult close(double got, double want, const std::string& what) {
  if (std::abs(got - want) <= 2e-5 + 1e-4 * std::abs(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << got << " vs " << want;
}

void expect_step(double loss, const std::vector<float>& params, const Reference& ref, int s) {
  SCOPED_TRACE("step " + std::to_string(s + 1));
  EXPECT_TRUE(close(loss, ref.loss[static_cast<std::size_t>(s)], "loss"));
  const std::vector<float>& want = ref.params[static_cast<std::size_t>(s)];
  ASSERT_EQ(params.size(), want.size());
  for (std::size_t i = 0; i < params.size(); ++i)
    ASSERT_TRUE(close(params[i], want[i], "parameter " + std::to_string(i)));
}

// --- Hand-made plans: ZeroTrainer directly. ---------------------------------------------------

// Uneven batches with different micro-batches (rank 0: 1 x 3 or 2 x 2) and uneven shards with
// one empty shard, on 2 or 3 ranks.
kernels::TransformerPlan hand_made_plan(int size, kernels::ZeroStage stage) {
  kernels::TransformerPlan plan;
  plan.sharding = {stage, true, false};
  if (size == 2)
    plan.ranks = {{4, 2, 2, 0.7, 0, 0}, {2, 1, 2, 0.3, 0, 0}};
  else
    plan.ranks = {{3, 1, 3, 0.0, 0, 0}, {2, 2, 1, 0.65, 0, 0}, {1, 1, 1, 0.35, 0, 0}};
  for (const core::RankPlan& r : plan.ranks) plan.rounds = std::max(plan.rounds, r.accumulation);
  plan.fits = true;
  return plan;
}

class EveryStage : public ::testing::TestWithParam<kernels::ZeroStage> {};

TEST_P(EveryStage, HandMadeUnevenPlanMatchesOneRank) {
  const int size = world_size();
  if (size > 3) GTEST_SKIP() << "hand-made plans are for 2 and 3 ranks";
  const kernels::AdamOptions adam{.lr = 0.01f, .eps = 1e-4f};
  const Reference ref = reference_run(adam);
  MpiCommunicator comm(MPI_COMM_WORLD);
  kernels::HostBackend backend;
  // Buckets of 1 KiB: the replicated stage's gradients go in several, started during backward.
  const kernels::TrainerOptions exchange{.bucket_bytes = 1024.0, .overlap = true};
  kernels::ZeroTrainer trainer(backend, tiny_shape(1), hand_made_plan(size, GetParam()),
                               comm.rank(), comm, kSeed, adam, exchange);
  for (int s = 0; s < kSteps; ++s) {
    core::PhaseTimer timer({"fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"},
                           1, [] { Kokkos::fence(); });
    trainer.step(timer, {}, static_cast<std::uint64_t>(s));
    const double loss = trainer.last_loss();
    expect_step(loss, trainer.full_parameters(), ref, s);
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, EveryStage,
                         ::testing::Values(kernels::ZeroStage::replicated,
                                           kernels::ZeroStage::zero1, kernels::ZeroStage::zero2,
                                           kernels::ZeroStage::zero3),
                         [](const auto& param_info) {
                           return std::string(kernels::stage_name(param_info.param));
                         });

// --- The workload's own plans. ------------------------------------------------------------------

struct Case {
  std::string split;            ///< "even", "weights" (3:2:1 or 2:1), "proportional", "auto"
  job::StateSharding sharding;  ///< a state_sharding value
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.split << " / " << job::state_sharding_text(c.sharding);
}

std::vector<int> configured_batch(const std::string& split, int size) {
  if (split == "even") return job::even_split(kGlobalBatch, size);
  if (split == "weights")
    return job::weighted_split(
        kGlobalBatch, size == 2 ? std::vector<double>{2, 1} : std::vector<double>{3, 2, 1});
  return {};  // profiled at run time
}

class EverySplitAndSharding : public ::testing::TestWithParam<Case> {};

TEST_P(EverySplitAndSharding, MatchesOneRank) {
  const int size = world_size();
  const Case& c = GetParam();
  const Reference ref = reference_run({.lr = 0.01f});
  MpiCommunicator comm(MPI_COMM_WORLD);
  core::RankContext ctx;
  ctx.comm = &comm;
  ctx.seed = kSeed;
  ctx.bucket_bytes = 2048.0;  // several buckets, all reduced after backward
  ctx.overlap = false;
  // Rank 0 gets a memory budget that holds a micro-batch of 1 with the state replicated and
  // little more, so plans shrink its micro-batch or its shard below the others'.
  const kernels::GptShape one = tiny_shape(1);
  const auto n = static_cast<std::size_t>(kernels::GptModel::parameter_count(one));
  if (world_rank() == 0)
    ctx.memory_budget_bytes =
        kernels::transformer_memory(one, kernels::ZeroStage::replicated, n, n).total() + 4096;
  const job::Config config{.id = "t",
                           .workload = "transformer",
                           .ranks = size,
                           .global_batch = kGlobalBatch,
                           .batch_split = c.split,
                           .per_rank_batch = configured_batch(c.split, size),
                           .precision = job::DataType::fp32,
                           .sharding = c.sharding};
  kernels::Transformer model(tiny_options(), config, ctx);
  const kernels::TransformerPlan& plan = model.plan();
  ASSERT_TRUE(plan.fits) << plan.why;
  if (world_rank() == 0) {
    EXPECT_LE(plan.ranks[0].memory_bytes, ctx.memory_budget_bytes) << kernels::describe_plan(plan);
  }
  for (int s = 0; s < kSteps; ++s) {
    core::PhaseTimer timer(model.phase_names(), 1, [] { Kokkos::fence(); });
    model.step(timer);
    expect_step(model.last_loss(), model.full_parameters(), ref, s);
  }
}

std::vector<Case> every_case() {
  std::vector<Case> cases;
  for (const char* split : {"even", "weights", "proportional", "auto"})
    for (const job::StateSharding& sharding : job::kStateShardings)
      cases.push_back({split, sharding});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Plans, EverySplitAndSharding, ::testing::ValuesIn(every_case()),
                         [](const auto& param_info) {
                           std::string name = param_info.param.split + "_" +
                                              job::state_sharding_text(param_info.param.sharding);
                           std::replace(name.begin(), name.end(), ':', '_');
                           return name;
                         });

}  // namespace
}  // namespace scaletune::mpi
