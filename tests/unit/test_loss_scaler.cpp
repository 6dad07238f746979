// Dynamic loss scaling (ops::LossScaler) on the host backend, against GradScaler's schedule.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "kernels/ops/loss_scaler.hpp"
#include "kernels/ops/transfer.hpp"
#include "tests/support/fake_communicator.hpp"

namespace scaletune::ops {
namespace {

struct ScalerTest : ::testing::Test {
  kernels::HostBackend backend;
  MemoryLedger ledger{backend};
  Tensor grads = ledger.make("grads", DType::fp32, {4});
  Tensor params = ledger.make("params", DType::fp32, {4});

  void set_grads(std::vector<float> values) { upload_floats(backend, grads, values); }
};

TEST_F(ScalerTest, DisabledScalesByOneAndNeverSkips) {
  LossScaler scaler(ledger, false);
  EXPECT_EQ(scaler.grad_scale(), 1.0f);
  set_grads({1.0f, std::numeric_limits<float>::infinity(), 0.0f, 0.0f});
  scaler.check(grads);
  const MasterUpdate update = scaler.master_update(Tensor());
  EXPECT_EQ(update.unscale, 1.0f);
  EXPECT_FALSE(update.found_nonfinite.defined());
  scaler.end_step();
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

TEST_F(ScalerTest, OverflowSkipsTheUpdateAndHalvesTheScale) {
  LossScaler scaler(ledger, true);
  EXPECT_EQ(scaler.grad_scale(), 65536.0f);
  upload_floats(backend, params, std::vector<float>{1, 2, 3, 4});
  set_grads({1.0f, std::nanf(""), 0.0f, 0.0f});
  scaler.check(grads);
  const Tensor velocity = ledger.make("velocity", DType::fp32, {4});
  backend.sgd_momentum(params, grads, velocity, SgdOptions{}, scaler.master_update(Tensor()));
  EXPECT_EQ(download_floats(backend, params), (std::vector<float>{1, 2, 3, 4}));
  scaler.end_step();
  EXPECT_EQ(scaler.skipped_steps(), 1);
  EXPECT_EQ(scaler.grad_scale(), 32768.0f);
  // The flag was cleared: a finite step is not skipped.
  set_grads({65536.0f, 0.0f, 0.0f, 0.0f});
  scaler.check(grads);
  const MasterUpdate update = scaler.master_update(Tensor());
  EXPECT_EQ(update.unscale, 1.0f / 32768.0f);
  backend.sgd_momentum(params, grads, velocity,
                       SgdOptions{.lr = 1.0f, .momentum = 0.0f, .weight_decay = 0.0f}, update);
  EXPECT_EQ(download_floats(backend, params)[0], 1.0f - 2.0f);  // grad 65536 / 32768
  scaler.end_step();
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

/// Rank 0 of two whose peer's int32 values are `peer`: all_reduce sums them in.
class PeerCommunicator : public testing_support::FakeCommunicator {
 public:
  explicit PeerCommunicator(std::int32_t peer) : FakeCommunicator(0, 2), m_peer(peer) {}
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp) override {
    ASSERT_EQ(type, core::DType::int32);
    ASSERT_EQ(count, 1u);
    *static_cast<std::int32_t*>(recv) = *static_cast<const std::int32_t*>(send) + m_peer;
    ++calls;
  }
  int calls = 0;

 private:
  std::int32_t m_peer;
};

TEST_F(ScalerTest, AgreeingSkipsAStepThatOverflowedOnAnotherRankOnly) {
  LossScaler scaler(ledger, true);
  set_grads({1.0f, 2.0f, 3.0f, 4.0f});  // finite here
  scaler.check(grads);
  PeerCommunicator overflowed_peer(1);
  scaler.agree(overflowed_peer);
  EXPECT_EQ(overflowed_peer.calls, 1);
  EXPECT_TRUE(scaler.end_step());
  EXPECT_EQ(scaler.skipped_steps(), 1);
  scaler.check(grads);
  PeerCommunicator finite_peer(0);
  scaler.agree(finite_peer);
  EXPECT_FALSE(scaler.end_step());
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST_F(ScalerTest, DisabledAgreesWithoutACollective) {
  LossScaler scaler(ledger, false);
  PeerCommunicator peer(1);
  scaler.agree(peer);
  EXPECT_EQ(peer.calls, 0);
  EXPECT_FALSE(scaler.end_step());
}

TEST_F(ScalerTest, ScaleGrowsAfterGrowthIntervalGoodSteps) {
  LossScaler scaler(ledger, true, LossScaleOptions{.initial_scale = 8.0f, .growth_interval = 3});
  set_grads({1, 2, 3, 4});
  for (int step = 0; step < 2; ++step) {
    scaler.check(grads);
    scaler.end_step();
    EXPECT_EQ(scaler.grad_scale(), 8.0f);
  }
  scaler.check(grads);
  scaler.end_step();
  EXPECT_EQ(scaler.grad_scale(), 16.0f);
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

}  // namespace
}  // namespace scaletune::ops
