// GradientReducer: the DDP bucket schedule, with and without overlap, on a recording
// communicator of one rank.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/gradient_reducer.hpp"
#include "tests/support/fake_communicator.hpp"

namespace scaletune::core {
namespace {

/// Records every started and every blocking all-reduce as (offset into `base`, count), and
/// every wait.
class RecordingCommunicator final : public testing_support::FakeCommunicator {
 public:
  explicit RecordingCommunicator(const float* base) : FakeCommunicator(0, 1), m_base(base) {}
  void start_all_reduce(const void* send, void* recv, std::size_t count, DType type,
                        ReduceOp op) override {
    record("start ", send, recv, count, type, op);
  }
  void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                  ReduceOp op) override {
    record("reduce ", send, recv, count, type, op);
  }
  bool progress_started() override {
    ++progress_calls;
    return true;
  }
  void wait_started() override { log.push_back("wait"); }

  std::vector<std::string> log;
  int progress_calls = 0;

 private:
  void record(const char* kind, const void* send, const void* recv, std::size_t count, DType type,
              ReduceOp op) {
    EXPECT_EQ(send, recv);
    EXPECT_EQ(type, DType::fp32);
    EXPECT_EQ(op, ReduceOp::sum);
    log.push_back(kind + std::to_string(static_cast<const float*>(send) - m_base) + "+" +
                  std::to_string(count));
  }

  const float* m_base;
};

TEST(GradientReducer, BucketsRunFromTheEndToTheFront) {
  EXPECT_EQ(bucket_count(10, 16), 3u);
  EXPECT_EQ(bucket_count(25 << 18, 25.0 * (1 << 20)), 1u);  // 25 MiB of floats fit one bucket
  EXPECT_EQ(bucket_count(0, 16), 0u);
  std::vector<float> grads(10);
  RecordingCommunicator comm(grads.data());
  GradientReducer reducer(comm, grads.data(), grads.size(), 4 * sizeof(float), false);
  EXPECT_EQ(reducer.buckets(), 3u);
  reducer.ready_from(0);  // without overlap nothing starts during backward
  EXPECT_TRUE(comm.log.empty());
  reducer.finish();
  EXPECT_EQ(comm.log, (std::vector<std::string>{"wait", "reduce 6+4", "reduce 2+4", "reduce 0+2"}));
}

TEST(GradientReducer, OverlapStartsEachBucketOnceBackwardHasFinishedIt) {
  std::vector<float> grads(10);
  RecordingCommunicator comm(grads.data());
  GradientReducer reducer(comm, grads.data(), grads.size(), 4 * sizeof(float), true);
  reducer.ready_from(8);  // [8, 10): bucket [6, 10) is not final yet
  EXPECT_TRUE(comm.log.empty());
  reducer.ready_from(6);
  EXPECT_EQ(comm.log, (std::vector<std::string>{"start 6+4"}));
  reducer.ready_from(3);  // [2, 6) still lacks gradients 2 and 3
  EXPECT_EQ(comm.log.size(), 1u);
  reducer.ready_from(0);
  reducer.finish();
  EXPECT_EQ(comm.log, (std::vector<std::string>{"start 6+4", "start 2+4", "start 0+2", "wait"}));
  EXPECT_EQ(comm.progress_calls, 4);
  // The next step starts from the first bucket again; finish() waits for it, then reduces
  // what backward left.
  comm.log.clear();
  reducer.ready_from(5);
  reducer.finish();
  EXPECT_EQ(comm.log, (std::vector<std::string>{"start 6+4", "wait", "reduce 2+4", "reduce 0+2"}));
}

TEST(GradientReducer, BucketSmallerThanAFloatIsRefused) {
  std::vector<float> grads(4);
  RecordingCommunicator comm(grads.data());
  EXPECT_THROW(GradientReducer(comm, grads.data(), grads.size(), 2, true), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::core
