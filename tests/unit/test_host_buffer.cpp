// Host communication buffers and timers: alignment, copies in and out, bounds, and the
// bookkeeping of marks (no clock values are asserted beyond their sign).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

#include "harness/core/host_buffer.hpp"
#include "harness/core/host_timer.hpp"
#include "tests/support/sanitizers.hpp"

namespace scaletune::core {
namespace {

std::vector<std::byte> bytes_counting_from(std::size_t n, int first) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>(first + static_cast<int>(i));
  return out;
}

TEST(HostBuffer, IsAlignedAndHoldsWhatWasUploaded) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}}) {
    HostBuffer buffer(n);
    EXPECT_EQ(buffer.bytes(), n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % HostBuffer::kAlignmentBytes, 0u);
  }
  HostBuffer buffer(10);
  buffer.upload(bytes_counting_from(10, 1));
  buffer.upload(bytes_counting_from(4, 50));  // overwrites the first 4 only
  std::vector<std::byte> back(10);
  buffer.download(back);
  std::vector<std::byte> want = bytes_counting_from(10, 1);
  for (int i = 0; i < 4; ++i) want[static_cast<std::size_t>(i)] = static_cast<std::byte>(50 + i);
  EXPECT_EQ(back, want);
  std::vector<std::byte> prefix(3);
  buffer.download(prefix);
  EXPECT_EQ(prefix, std::vector<std::byte>(want.begin(), want.begin() + 3));
}

TEST(HostBuffer, RefusesCopiesLongerThanTheBuffer) {
  HostBuffer buffer(8);
  EXPECT_THROW(buffer.upload(bytes_counting_from(9, 0)), std::invalid_argument);
  std::vector<std::byte> too_long(9);
  EXPECT_THROW(buffer.download(too_long), std::invalid_argument);
}

TEST(HostBuffer, ImpossibleSizeIsBadAlloc) {
  SCALETUNE_SKIP_UNDER_ASAN("its operator new aborts instead of throwing std::bad_alloc");
  EXPECT_THROW(HostBuffer(std::numeric_limits<std::size_t>::max() / 2), std::bad_alloc);
}

TEST(HostTimer, GivesOneIntervalLessThanMarksAndForgetsThem) {
  HostTimer timer;
  EXPECT_TRUE(timer.intervals().empty());
  timer.mark();
  EXPECT_TRUE(timer.intervals().empty());  // one mark: no interval, and it is forgotten
  for (int i = 0; i < 4; ++i) timer.mark();
  const std::vector<double> elapsed_s = timer.intervals();
  ASSERT_EQ(elapsed_s.size(), 3u);
  for (const double s : elapsed_s) EXPECT_GE(s, 0.0);  // steady_clock never goes back
  EXPECT_TRUE(timer.intervals().empty());
}

}  // namespace
}  // namespace scaletune::core
