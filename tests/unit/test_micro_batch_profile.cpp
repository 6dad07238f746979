// The micro-batch profiler: the sizes a profile times, MicroBatchProfiler::bytes by its
// definition and against what the profiler really takes from the heap (glibc's mallinfo2: bytes
// in use in the arenas plus mmapped blocks), what run returns (no timing assertions) and the
// errors of bad sizes and shapes.

#include "kernels/transformer/micro_batch_profile.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "tests/support/sanitizers.hpp"

namespace scaletune::kernels {
namespace {

TEST(ProfileSizes, PowersOfTwoBelowTheLargestThenTheLargest) {
  EXPECT_EQ(profile_sizes(1), (std::vector<int>{1}));
  EXPECT_EQ(profile_sizes(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(profile_sizes(5), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(profile_sizes(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(profile_sizes(9), (std::vector<int>{1, 2, 4, 8, 9}));
  EXPECT_THROW(profile_sizes(0), std::invalid_argument);
  EXPECT_THROW(profile_sizes(-3), std::invalid_argument);
}

GptShape small_shape() {
  return {.layers = 3, .hidden = 16, .heads = 2, .seq_len = 8, .vocab = 40, .max_micro_batch = 5};
}

TEST(MicroBatchProfiler, BytesAreOneBlocksStateActivationsAndTokens) {
  const GptShape shape = small_shape();
  GptShape one = shape;
  one.layers = 1;
  // Parameters and gradients of a one-block model; activations; ids and targets of 5 x 8.
  EXPECT_EQ(
      MicroBatchProfiler::bytes(shape),
      2 * 4 * GptModel::parameter_count(one) + GptModel::activation_bytes(shape) + 2 * 4 * 5 * 8);
}

std::int64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}

TEST(MicroBatchProfiler, BytesWithinFivePercentOfTheHeapItTakes) {
  SCALETUNE_SKIP_UNDER_ASAN("mallinfo2 does not see its heap");
  const GptShape shape{
      .layers = 4, .hidden = 64, .heads = 4, .seq_len = 64, .vocab = 1000, .max_micro_batch = 8};
  const std::int64_t estimate = MicroBatchProfiler::bytes(shape);
  HostBackend backend;
  const std::int64_t before = heap_in_use();
  const MicroBatchProfiler profiler(backend, shape, 3);
  const std::int64_t grown = heap_in_use() - before;
  const double ratio = static_cast<double>(estimate) / static_cast<double>(grown);
  std::printf("MicroBatchProfiler::bytes %lld B / heap grew %lld B = %.4f\n",
              static_cast<long long>(estimate), static_cast<long long>(grown), ratio);
  EXPECT_GE(ratio, 0.95);
  EXPECT_LE(ratio, 1.05);
}

TEST(MicroBatchProfiler, RunReturnsEverySizeWithAPositiveTime) {
  HostBackend backend;
  MicroBatchProfiler profiler(backend, small_shape(), 3);
  const std::vector<int> sizes = profile_sizes(5);
  int calls = 0;
  const core::RankProfile profile = profiler.run(sizes, 2, [&] { ++calls; });
  EXPECT_EQ(profile.micro_batches, sizes);
  ASSERT_EQ(profile.time_s.size(), sizes.size());
  for (const double t : profile.time_s) EXPECT_GT(t, 0.0);
  EXPECT_EQ(profile.capacity_bytes, 0);
  // before_each starts every timed call (2 per size), and perhaps the untimed first one.
  EXPECT_GE(calls, 2 * 4);
  EXPECT_LE(calls, 2 * 4 + 1);
}

TEST(MicroBatchProfiler, RejectsBadSizesRepeatsAndShapes) {
  HostBackend backend;
  MicroBatchProfiler profiler(backend, small_shape(), 3);
  const auto nothing = [] {};
  EXPECT_THROW(profiler.run({}, 1, nothing), std::invalid_argument);
  EXPECT_THROW(profiler.run({0, 1}, 1, nothing), std::invalid_argument);
  EXPECT_THROW(profiler.run({2, 1}, 1, nothing), std::invalid_argument);
  EXPECT_THROW(profiler.run({1, 6}, 1, nothing), std::invalid_argument);  // above max 5
  EXPECT_THROW(profiler.run({1, 2}, 0, nothing), std::invalid_argument);
  GptShape bad = small_shape();
  bad.heads = 3;  // 16 is not a multiple of 3
  EXPECT_THROW(MicroBatchProfiler(backend, bad, 3), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels
