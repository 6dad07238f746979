#include "harness/core/parallel_each.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace scaletune::core {
namespace {

TEST(ParallelEach, CallsEveryIndexOnceOnAWorkerInRange) {
  constexpr std::size_t n = 1000;
  std::vector<std::atomic<int>> calls(n);
  const unsigned workers = parallel_workers(n, 8);
  std::atomic<bool> worker_in_range{true};
  parallel_each(n, 8, [&](std::size_t i, unsigned w) {
    if (w >= workers) worker_in_range = false;
    ++calls[i];
  });
  EXPECT_TRUE(worker_in_range);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i;
}

TEST(ParallelEach, WorkersAreBoundedByTheItemsTheLimitAndTheCores) {
  const unsigned cores = std::max(std::thread::hardware_concurrency(), 1u);
  EXPECT_EQ(parallel_workers(0, 8), 1u);
  EXPECT_EQ(parallel_workers(1, 8), 1u);
  EXPECT_EQ(parallel_workers(100, 1), 1u);
  EXPECT_EQ(parallel_workers(100, 0), 1u);
  EXPECT_EQ(parallel_workers(100, 1000), cores);
  EXPECT_EQ(parallel_workers(2, 1000), std::min(cores, 2u));
}

TEST(ParallelEach, TheFirstExceptionIsRethrownAfterTheOthersFinish) {
  std::atomic<int> running{0};
  EXPECT_THROW(parallel_each(100, 4,
                             [&](std::size_t i, unsigned) {
                               ++running;
                               if (i == 3) throw std::runtime_error("index 3");
                               --running;
                             }),
               std::runtime_error);
  // Only the throwing call is left "running": every other call returned before the rethrow.
  EXPECT_EQ(running.load(), 1);
}

TEST(ParallelEach, AfterAnExceptionNoFurtherIndexIsHandedOut) {
  std::vector<std::size_t> ran;
  EXPECT_THROW(parallel_each(100, 1,
                             [&](std::size_t i, unsigned) {
                               if (i == 3) throw std::runtime_error("index 3");
                               ran.push_back(i);
                             }),
               std::runtime_error);
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(ParallelEach, NothingToDoCallsNothing) {
  int calls = 0;
  parallel_each(0, 8, [&](std::size_t, unsigned) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace scaletune::core
