// Transformer memory by ZeRO stage: transformer_memory against the header's formulas computed by
// hand, the planner's linear model against it (slope per sample, state bytes, an upper bound
// for shards within one element), and the estimate against what a ZeroTrainer really takes
// from the heap (glibc's mallinfo2: bytes in use in the arenas plus mmapped blocks) on each
// rank of an uneven three-rank plan.

#include "kernels/transformer/transformer_memory.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/core/memory_budget.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/transformer/state_layout.hpp"
#include "kernels/transformer/zero_trainer.hpp"
#include "tests/support/fake_communicator.hpp"
#include "tests/support/sanitizers.hpp"

namespace scaletune::kernels {
namespace {

constexpr ZeroStage kStages[] = {ZeroStage::replicated, ZeroStage::zero1, ZeroStage::zero2,
                                 ZeroStage::zero3};

GptShape tiny_shape(int micro_batch) {
  return {.layers = 2,
          .hidden = 8,
          .heads = 2,
          .seq_len = 4,
          .vocab = 11,
          .max_micro_batch = micro_batch};
}

GptShape with_micro_batch(GptShape shape, int micro_batch) {
  shape.max_micro_batch = micro_batch;
  return shape;
}

std::int64_t largest_unit(const GptShape& shape) {
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(shape);
  return *std::max_element(units.begin(), units.end());
}

/// Rank r's largest part of one parameter unit under `layout` (element by element).
std::size_t largest_part(const GptShape& shape, const ShardLayout& layout, std::size_t r) {
  std::size_t begin = 0, largest = 0;
  for (const std::int64_t u : GptModel::unit_parameter_counts(shape)) {
    const std::size_t end = begin + static_cast<std::size_t>(u);
    const std::size_t lo = std::max(begin, layout.offsets[r]);
    const std::size_t hi = std::min(end, layout.offsets[r] + layout.counts[r]);
    largest = std::max(largest, hi > lo ? hi - lo : 0);
    begin = end;
  }
  return largest;
}

double model_bytes(const core::MemoryModel& model, double fraction, int micro_batch) {
  return model.state_bytes * fraction + model.replicated_bytes +
         model.activation_bytes_per_sample * micro_batch;
}

TEST(TransformerMemory, EachStageByTheHeaderFormulas) {
  const GptShape shape = tiny_shape(3);
  const std::int64_t N = GptModel::parameter_count(shape);
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(shape);
  const std::int64_t E = units.front(), Lb = units[1], F = units.back();
  const std::int64_t n = 37, c = 13;
  // Activations, then the token ids and targets: 8 bytes per token of 3 samples of 4.
  const std::int64_t act = GptModel::activation_bytes(shape) + 8 * 3 * 4;
  struct Expected {
    ZeroStage stage;
    std::int64_t parameters, gradients, optimizer, comm;
  };
  const Expected expected[] = {
      {ZeroStage::replicated, 4 * N, 4 * N, 8 * N, 0},
      {ZeroStage::zero1, 4 * N, 4 * N + 4 * n, 8 * n, 0},
      {ZeroStage::zero2, 4 * N, 4 * n + 4 * (E + Lb + F), 8 * n, 4 * c},
      {ZeroStage::zero3, 4 * n + 4 * (E + Lb + F), 4 * n + 4 * (E + Lb + F), 8 * n, 4 * c},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(std::string(stage_name(e.stage)));
    const TransformerMemory m = transformer_memory(shape, e.stage, n, c);
    EXPECT_EQ(m.parameters, e.parameters);
    EXPECT_EQ(m.gradients, e.gradients);
    EXPECT_EQ(m.optimizer, e.optimizer);
    EXPECT_EQ(m.activations, act);
    EXPECT_EQ(m.comm_buffers, e.comm);
    EXPECT_EQ(m.total(), e.parameters + e.gradients + e.optimizer + act + e.comm);
  }
}

TEST(TransformerMemory, SixteenBitActivationsAddTheWorkingCopyAndFp16sOverflowFlag) {
  const GptShape wide = tiny_shape(3);
  const std::int64_t N = GptModel::parameter_count(wide);
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(wide);
  const std::int64_t gathered = units.front() + units[1] + units.back();
  for (const ops::DType dtype : {ops::DType::fp16, ops::DType::bf16}) {
    GptShape narrow = wide;
    narrow.dtype = dtype;
    for (const ZeroStage stage : kStages) {
      SCOPED_TRACE(std::string(stage_name(stage)) + " " + std::string(core::dtype_key(dtype)));
      const TransformerMemory m32 = transformer_memory(wide, stage, 37, 13);
      const TransformerMemory m16 = transformer_memory(narrow, stage, 37, 13);
      // The 16-bit working copy of the whole vector, or of zero3's gather buffers.
      EXPECT_EQ(m16.parameters - m32.parameters, 2 * (stage == ZeroStage::zero3 ? gathered : N));
      EXPECT_EQ(m16.gradients, m32.gradients);
      EXPECT_EQ(m16.optimizer - m32.optimizer, dtype == ops::DType::fp16 ? 4 : 0);
      EXPECT_EQ(m16.activations, GptModel::activation_bytes(narrow) + 8 * 3 * 4);
      EXPECT_LT(m16.activations, m32.activations);
      EXPECT_EQ(m16.comm_buffers, m32.comm_buffers);
    }
  }
}

TEST(TransformerMemory, DescribeNamesEveryKind) {
  const TransformerMemory m{.parameters = 1536,
                            .gradients = 2048,
                            .optimizer = 512,
                            .activations = 3 << 20,
                            .comm_buffers = 0};
  EXPECT_EQ(m.describe(),
            "parameters " + core::format_bytes(1536) + ", gradients " + core::format_bytes(2048) +
                ", optimizer state " + core::format_bytes(512) + ", activations " +
                core::format_bytes(3 << 20) + ", communication buffers " + core::format_bytes(0));
}

TEST(TransformerMemory, RejectsABadShape) {
  GptShape bad = tiny_shape(1);
  bad.heads = 3;  // 8 is not a multiple of 3
  EXPECT_THROW(transformer_memory(bad, ZeroStage::zero1, 1, 1), std::invalid_argument);
  EXPECT_THROW(transformer_memory_model(bad, ZeroStage::zero1, true, 2), std::invalid_argument);
}

TEST(TransformerMemoryModel, StateBytesAndActivationsLinearInTheMicroBatch) {
  const GptShape shape = tiny_shape(1);
  const std::int64_t N = GptModel::parameter_count(shape);
  const auto c = static_cast<std::size_t>(largest_unit(shape));
  const double sharded[] = {0.0, 12.0 * N, 12.0 * N, 16.0 * N};
  for (const ZeroStage stage : kStages) {
    SCOPED_TRACE(std::string(stage_name(stage)));
    const core::MemoryModel model = transformer_memory_model(shape, stage, true, 3);
    EXPECT_EQ(model.state_bytes, sharded[static_cast<int>(stage)]);
    const auto exact = [&](int m, std::size_t count) {
      return static_cast<double>(
          transformer_memory(with_micro_batch(shape, m), stage, count, c).total());
    };
    const auto whole = static_cast<std::size_t>(N);
    for (int m = 1; m <= 6; ++m) {
      // Linear in the micro-batch with the true slope, the state bytes the difference between
      // no shard and the whole state, and above the true bytes by at most one element (16 B).
      EXPECT_EQ(model_bytes(model, 0.0, m) - model_bytes(model, 0.0, 1), exact(m, 0) - exact(1, 0))
          << "micro-batch " << m;
      EXPECT_EQ(model.state_bytes, exact(m, whole) - exact(m, 0)) << "micro-batch " << m;
      EXPECT_GE(model_bytes(model, 0.0, m) - exact(m, 0), 0.0) << "micro-batch " << m;
      EXPECT_LE(model_bytes(model, 0.0, m) - exact(m, 0), 16.0) << "micro-batch " << m;
    }
    const core::MemoryModel even = transformer_memory_model(shape, stage, false, 3);
    EXPECT_EQ(even.state_bytes, 0.0);
    EXPECT_EQ(even.activation_bytes_per_sample, model.activation_bytes_per_sample);
  }
}

/// The model bounds transformer_memory for every shard count within one element of
/// N * fraction and any receive buffer up to the largest unit; and not by much.
void expect_upper_bound(const GptShape& shape, ZeroStage stage, bool memory_proportional,
                        const std::vector<double>& fractions) {
  const auto N = static_cast<double>(GptModel::parameter_count(shape));
  const int ranks = static_cast<int>(fractions.size());
  const core::MemoryModel model =
      transformer_memory_model(shape, stage, memory_proportional, ranks);
  const auto c = static_cast<std::size_t>(largest_unit(shape));
  for (int m = 1; m <= 4; ++m)
    for (const double f : fractions) {
      const double bound = model_bytes(model, memory_proportional ? f : 0.0, m);
      const auto lo = static_cast<std::size_t>(std::max(0.0, std::ceil(N * f - 1.0)));
      const auto hi = static_cast<std::size_t>(std::floor(N * f + 1.0));
      for (std::size_t count = lo; count <= hi; ++count) {
        const auto exact = static_cast<double>(
            transformer_memory(with_micro_batch(shape, m), stage, count, c).total());
        EXPECT_LE(exact, bound) << stage_name(stage) << " m " << m << " fraction " << f << " count "
                                << count;
        EXPECT_LE(bound - exact, 64.0) << stage_name(stage) << " m " << m << " fraction " << f;
      }
    }
}

TEST(TransformerMemoryModel, UpperBoundOfShardsWithinOneElement) {
  const GptShape shape = tiny_shape(1);
  for (const ZeroStage stage : kStages) {
    expect_upper_bound(shape, stage, true, {0.5, 0.3, 0.2});
    expect_upper_bound(shape, stage, true, {0.123457, 0.876543, 0.0});
    expect_upper_bound(shape, stage, false, {1.0 / 3, 1.0 / 3, 1.0 / 3});
  }
}

std::int64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}

/// Three ranks, shards 0.5 / 0.3 / 0.2, batches 4 / 1 / 3 in micro-batches of 2 / 1 / 3.
TransformerPlan uneven_plan(ZeroStage stage) {
  TransformerPlan plan;
  plan.sharding = {stage, stage != ZeroStage::replicated, false};
  plan.ranks = {{4, 2, 2, 0.5, 0.0, 0}, {1, 1, 1, 0.3, 0.0, 0}, {3, 3, 1, 0.2, 0.0, 0}};
  plan.rounds = 2;
  plan.fits = true;
  return plan;
}

TEST(TransformerMemory, EstimateMatchesWhatAZeroTrainerTakesFromTheHeap) {
  SCALETUNE_SKIP_UNDER_ASAN("mallinfo2 does not see its heap");
  const GptShape shape{.layers = 2, .hidden = 64, .heads = 4, .seq_len = 32, .vocab = 500};
  const auto N = static_cast<std::size_t>(GptModel::parameter_count(shape));
  for (const ZeroStage stage : kStages) {
    const TransformerPlan plan = uneven_plan(stage);
    const ShardLayout layout = shard_layout(N, {0.5, 0.3, 0.2});
    for (int r = 0; r < 3; ++r) {
      const std::string what = std::string(stage_name(stage)) + " rank " + std::to_string(r);
      const auto ru = static_cast<std::size_t>(r);
      const TransformerMemory estimate =
          transformer_memory(with_micro_batch(shape, plan.ranks[ru].micro_batch), stage,
                             layout.counts[ru], largest_part(shape, layout, ru));
      testing_support::FakeCommunicator comm(r, 3);
      HostBackend backend;
      const std::int64_t before = heap_in_use();
      const ZeroTrainer trainer(backend, shape, plan, r, comm, 17, AdamOptions{});
      const std::int64_t grown = heap_in_use() - before;
      EXPECT_EQ(trainer.allocated_bytes(), estimate.total()) << what;
      const double ratio = static_cast<double>(estimate.total()) / static_cast<double>(grown);
      std::printf("%s: estimate %lld B / heap grew %lld B = %.4f\n", what.c_str(),
                  static_cast<long long>(estimate.total()), static_cast<long long>(grown), ratio);
      EXPECT_GE(ratio, 0.95) << what << ": " << estimate.describe();
      EXPECT_LE(ratio, 1.05) << what << ": " << estimate.describe();
    }
  }
}

}  // namespace
}  // namespace scaletune::kernels
