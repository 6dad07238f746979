// The replicated stage's gradient exchange (core::GradientReducer): on one rank with a recording
// communicator, every bucket covers its part of the flat gradients once, from the end of the
// vector to its front, and holds its final values when it starts (nothing writes it after);
// with overlap the first bucket starts while backward still runs (before the embeddings'
// backward has written the position-embedding gradients) and only in the last micro-batch's
// backward; without overlap every bucket starts after backward.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/core/gradient_reducer.hpp"
#include "harness/core/phase_timer.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/transformer/zero_trainer.hpp"
#include "tests/support/fake_communicator.hpp"

namespace scaletune::kernels {
namespace {

/// One rank: all-reduces are the identity; each bucket is recorded with its values at the start
/// and at the wait (a blocking all-reduce of a bucket: the same values); other all-reduces are
/// not recorded.
class RecordingCommunicator : public testing_support::FakeCommunicator {
 public:
  struct Bucket {
    const float* data;
    std::size_t count;
    std::vector<float> at_start, at_wait;
  };

  RecordingCommunicator() : FakeCommunicator(0, 1) {}

  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp op) override {
    if (type != core::DType::fp32) return;  // the loss, not a gradient bucket
    start_all_reduce(send, recv, count, type, op);
    buckets.back().at_wait = buckets.back().at_start;
  }
  void start_all_reduce(const void* send, void*, std::size_t count, core::DType,
                        core::ReduceOp) override {
    const auto* data = static_cast<const float*>(send);
    buckets.push_back({data, count, std::vector<float>(data, data + count), {}});
    if (buckets.size() == 1) first_start_wpe_zero = wpe_is_zero(data + count);
  }
  void wait_started() override {
    for (Bucket& b : buckets) b.at_wait.assign(b.data, b.data + b.count);
  }

  /// Where the position embedding's gradients lie, counted back from the end of the vector.
  std::size_t wpe_from_end = 0, wpe_count = 0;
  std::vector<Bucket> buckets;
  bool first_start_wpe_zero = false;

 private:
  bool wpe_is_zero(const float* end) const {
    const float* wpe = end - wpe_from_end;
    return std::all_of(wpe, wpe + wpe_count, [](float g) { return g == 0.0f; });
  }
};

/// 2 layers, H 8, 2 heads, S 4, V 13, F 16; one rank of `accumulation` micro-batches of 2.
struct OneRankStep {
  GptShape shape{2, 8, 2, 4, 13, 2, 0.1f, 2};
  RecordingCommunicator comm;
  HostBackend backend;
  std::unique_ptr<ZeroTrainer> trainer;  ///< alive while the recorded buckets are compared
  std::size_t total = 0;

  explicit OneRankStep(int accumulation, bool overlap) {
    TransformerPlan plan;
    plan.sharding = {ZeroStage::replicated, false, false};
    plan.ranks = {{2 * accumulation, 2, accumulation, 1.0, 0.0, 0}};
    plan.rounds = accumulation;
    plan.fits = true;
    total = static_cast<std::size_t>(GptModel::parameter_count(shape));
    const std::size_t h = 8, v = 13, s = 4;
    comm.wpe_from_end = total - v * h, comm.wpe_count = s * h;
    // Buckets of 64 floats: ln_f (16) and the blocks' tails end up in the first ones.
    trainer =
        std::make_unique<ZeroTrainer>(backend, shape, plan, 0, comm, 3, AdamOptions{},
                                      TrainerOptions{.bucket_bytes = 256.0, .overlap = overlap});
    core::PhaseTimer timer({"fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"},
                           1, [] {});
    trainer->step(timer, {}, 0);
  }
};

void expect_every_bucket_once_from_the_end_and_final_at_start(const OneRankStep& run) {
  const std::vector<RecordingCommunicator::Bucket>& buckets = run.comm.buckets;
  ASSERT_EQ(buckets.size(), core::bucket_count(run.total, 256.0));
  const float* end = buckets.front().data + buckets.front().count;
  for (const RecordingCommunicator::Bucket& b : buckets) {
    EXPECT_EQ(b.data + b.count, end);  // contiguous, each just before the previous one
    end = b.data;
    EXPECT_EQ(b.at_start, b.at_wait)
        << "a bucket at " << (b.data - buckets.back().data) << " changed after it started";
  }
  EXPECT_EQ(buckets.back().data + run.total, buckets.front().data + buckets.front().count);
}

TEST(TransformerGradientBuckets, OverlapStartsTheFirstBucketDuringBackward) {
  const OneRankStep run(1, true);
  expect_every_bucket_once_from_the_end_and_final_at_start(run);
  EXPECT_TRUE(run.comm.first_start_wpe_zero);  // the embeddings' backward had not run yet
}

TEST(TransformerGradientBuckets, WithAccumulationOnlyTheLastMicroBatchStartsBuckets) {
  const OneRankStep run(2, true);
  expect_every_bucket_once_from_the_end_and_final_at_start(run);
  // The first micro-batch's embedding backward had run: its position gradients are there.
  EXPECT_FALSE(run.comm.first_start_wpe_zero);
}

TEST(TransformerGradientBuckets, WithoutOverlapEveryBucketStartsAfterBackward) {
  const OneRankStep run(1, false);
  expect_every_bucket_once_from_the_end_and_final_at_start(run);
  EXPECT_FALSE(run.comm.first_start_wpe_zero);
}

}  // namespace
}  // namespace scaletune::kernels
