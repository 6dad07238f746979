// Core pieces without MPI: statistics, phase timer, batch splits, bucketed all-reduce.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "harness/core/gradient_allreduce.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/core/phase_timer.hpp"
#include "harness/core/stats.hpp"
#include "harness/job/batch_split.hpp"
#include "tests/support/fake_communicator.hpp"

namespace scaletune::core {
namespace {

TEST(Stats, MedianAndQuantileMatchNumpyDefinition) {
  const std::vector<double> x = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(median(x), 3.0);
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  // numpy.quantile([1..10], 0.95) = 9.55 (linear interpolation, type 7).
  std::vector<double> ten(10);
  std::iota(ten.begin(), ten.end(), 1.0);
  EXPECT_NEAR(quantile(ten, 0.95), 9.55, 1e-12);
  EXPECT_THROW(median(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(quantile(ten, 1.5), std::invalid_argument);
}

TEST(PhaseTimer, ChargesSpansToPhasesAndFencesEveryRead) {
  int fences = 0;
  PhaseTimer timer({"fwd", "bwd"}, 2, [&] { ++fences; });
  timer.mark(0);  // outside an iteration: ignored, no fence
  EXPECT_EQ(fences, 0);
  for (std::size_t i = 0; i < 2; ++i) {
    timer.begin_iteration(i);
    timer.mark(timer.index("fwd"));
    timer.mark(timer.index("bwd"));
    const double total = timer.end_iteration();
    const double fwd = timer.phase_times()[i * 2], bwd = timer.phase_times()[i * 2 + 1];
    EXPECT_GE(fwd, 0.0);
    EXPECT_GE(bwd, 0.0);
    EXPECT_LE(fwd + bwd, total);
    EXPECT_DOUBLE_EQ(timer.iteration_times()[i], total);
  }
  EXPECT_EQ(fences, 2 * 4);  // begin, two marks, end
  EXPECT_THROW(timer.index("optimizer"), std::out_of_range);
  EXPECT_THROW(timer.begin_iteration(2), std::out_of_range);
}

TEST(BatchSplit, EvenAndWeighted) {
  EXPECT_EQ(job::even_split(256, 4), (std::vector<int>{64, 64, 64, 64}));
  try {
    job::even_split(7, 2);
    FAIL() << "7 over 2 must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "7 samples cannot split evenly over 2 ranks");
  }
  // Hamilton's method by hand: 1 each, then 7 shared 0.5:0.25:0.25 -> 3.5, 1.75, 1.75 ->
  // floors 3,1,1 (5), remainders .5,.75,.75 -> ranks 1 and 2 get one more.
  EXPECT_EQ(job::weighted_split(10, {0.5, 0.25, 0.25}), (std::vector<int>{4, 3, 3}));
  const auto parts = job::weighted_split(97, {3, 2, 1});
  EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), 0), 97);
  EXPECT_THROW(job::weighted_split(2, {1, 1, 1}), std::invalid_argument);
  EXPECT_EQ(job::per_rank_batch_text({8, 8}), "8x2");
  EXPECT_EQ(job::per_rank_batch_text({4, 3, 3}), "4,3,3");
  EXPECT_EQ(job::per_rank_batch_text({}), "-");
  EXPECT_THROW(job::weighted_split(8, {1, 0}), std::invalid_argument);
}

TEST(BatchSplit, WeightsMustBeFiniteWithAFiniteSum) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(job::weighted_split(8, {1, inf}), std::invalid_argument);
  EXPECT_THROW(job::weighted_split(8, {nan, 1}), std::invalid_argument);
  EXPECT_THROW(job::weighted_split(8, {-1, 2}), std::invalid_argument);
  // Each weight is finite but the sum overflows (the defect: a crash, or -2147483646 per rank).
  EXPECT_THROW(job::weighted_split(8, {1e308, 1e308}), std::invalid_argument);
  EXPECT_THROW(job::weighted_split(4, {1.7e308, 1.7e308}), std::invalid_argument);
}

TEST(BatchSplit, HugeAndExtremeWeightsSplitByTheirRatio) {
  // Only ratios matter: 6e307:3e307:3e307 is 0.5:0.25:0.25, the hand-worked case above, although
  // batch * weight alone would overflow a double.
  EXPECT_EQ(job::weighted_split(10, {6e307, 3e307, 3e307}), (std::vector<int>{4, 3, 3}));
  EXPECT_EQ(job::weighted_split(8, {8e307, 8e307}), (std::vector<int>{4, 4}));
  // A ratio of 1e600 leaves the small rank its guaranteed one sample and the rest to the other.
  EXPECT_EQ(job::weighted_split(8, {1e300, 1e-300}), (std::vector<int>{7, 1}));
  const auto parts = job::weighted_split(1 << 30, {1e-300, 3e-300, 1e300});
  EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), 0LL), 1LL << 30);
  EXPECT_EQ(parts, (std::vector<int>{1, 1, (1 << 30) - 2}));
}

// A communicator standing for `n` ranks that all hold the same data: the sum is n times it.
// It records the size of every float reduction so the bucketing can be checked.
class ReplicatedCommunicator final : public testing_support::FakeCommunicator {
 public:
  explicit ReplicatedCommunicator(int n) : FakeCommunicator(0, n) {}
  void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                  ReduceOp op) override {
    EXPECT_EQ(send, recv) << "gradients are reduced in place";
    EXPECT_EQ(op, ReduceOp::sum);
    if (type == DType::fp32) {
      calls.push_back(count);
      for (float& x : std::span(static_cast<float*>(recv), count)) x *= static_cast<float>(size());
    } else {
      ADD_FAILURE() << "unexpected all-reduce of " << dtype_key(type);
    }
  }
  std::vector<std::size_t> calls;
};

TEST(GradientAllReduce, BucketsFromTheBackAndAverages) {
  ReplicatedCommunicator comm(4);
  std::vector<float> grads(10);
  std::iota(grads.begin(), grads.end(), 1.0f);
  bucketed_all_reduce(comm, grads, 4 * sizeof(float), 0.25f);
  EXPECT_EQ(comm.calls, (std::vector<std::size_t>{4, 4, 2}));  // last layers first
  for (std::size_t i = 0; i < grads.size(); ++i) EXPECT_FLOAT_EQ(grads[i], float(i + 1));
  EXPECT_EQ(bucket_count(10, 16), 3u);
  EXPECT_EQ(bucket_count(25 << 18, 25.0 * (1 << 20)), 1u);  // 25 MiB of floats fit one bucket
  EXPECT_THROW(bucketed_all_reduce(comm, grads, 2, 1.0f), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::core

namespace scaletune::core {
namespace {

TEST(MemoryBudget, RefusesPastTheBudgetAsBadAlloc) {
  EXPECT_NO_THROW(check_memory_budget(100, 100, "x"));
  EXPECT_NO_THROW(check_memory_budget(1'000'000, 0, "x"));  // 0: no limit
  try {
    check_memory_budget(3'000'000'000, 2'000'000'000, "activations");
    FAIL() << "3 GB over a 2 GB budget must throw";
  } catch (const std::bad_alloc& e) {  // recorded as oom by the sweep
    EXPECT_EQ(std::string(e.what()),
              "needs more than 3.0000 GB (at activations), over this rank's memory budget of "
              "2.0000 GB");
  }
  const std::int64_t one = host_memory_budget_bytes(1);
  EXPECT_GT(one, 0);
  EXPECT_LT(host_memory_budget_bytes(4), one);  // shared by four ranks
}

}  // namespace
}  // namespace scaletune::core
