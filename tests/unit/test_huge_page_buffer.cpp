// HugePageBuffer: 2 MiB alignment, zero fill, sizes, move semantics, and table views that read
// and write the buffer's own memory. Huge-page advice is checked only where the kernel has
// transparent huge pages (the sysfs switch exists).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/host/huge_page_buffer.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

bool aligned_to_2_mib(const float* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{1} << 21) == 0;
}

/// Whether every float in the first `count` of `p` is +0.0 (all bits zero).
bool all_zero(const float* p, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    if (p[i] != 0.0f || std::signbit(p[i])) return false;
  }
  return true;
}

TEST(HugePageBuffer, IsAlignedZeroFilledAndOfTheAskedSize) {
  for (const std::int64_t bytes : {std::int64_t{4}, 3 * kMiB + 12, 4 * kMiB}) {
    HugePageBuffer buffer(bytes);
    EXPECT_EQ(buffer.bytes(), bytes);
    ASSERT_NE(buffer.floats(), nullptr);
    EXPECT_TRUE(aligned_to_2_mib(buffer.floats())) << bytes;
    const std::int64_t count = bytes / 4;
    EXPECT_TRUE(all_zero(buffer.floats(), count)) << bytes;
    buffer.floats()[count - 1] = 7.0f;  // the last whole float is writable
    EXPECT_EQ(buffer.floats()[count - 1], 7.0f);
  }
}

TEST(HugePageBuffer, AdvisesHugePagesWhereTheKernelHasThem) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "kernel without transparent huge pages";
  EXPECT_TRUE(HugePageBuffer(2 * kMiB).huge_pages_advised());
}

TEST(HugePageBuffer, EmptyBufferHasNoMemoryAndNegativeSizeIsRefused) {
  HugePageBuffer empty(0);
  EXPECT_EQ(empty.bytes(), 0);
  EXPECT_EQ(empty.floats(), nullptr);
  try {
    HugePageBuffer bad(-5);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bytes = -5 must be >= 0"), std::string::npos) << e.what();
  }
}

TEST(HugePageBuffer, ImpossibleSizeIsBadAlloc) {
  EXPECT_THROW(HugePageBuffer(std::int64_t{1} << 62), std::bad_alloc);
}

TEST(HugePageBuffer, MovesTransferTheMemoryAndEmptyTheSource) {
  HugePageBuffer first(kMiB);
  first.floats()[3] = 1.5f;
  float* const memory = first.floats();
  HugePageBuffer second(std::move(first));
  EXPECT_EQ(second.floats(), memory);
  EXPECT_EQ(second.bytes(), kMiB);
  EXPECT_EQ(second.floats()[3], 1.5f);
  EXPECT_EQ(first.floats(), nullptr);  // NOLINT(bugprone-use-after-move): checking the source
  EXPECT_EQ(first.bytes(), 0);
  EXPECT_FALSE(first.huge_pages_advised());

  HugePageBuffer third(2 * kMiB);
  third = std::move(second);
  EXPECT_EQ(third.floats(), memory);
  EXPECT_EQ(third.bytes(), kMiB);
  EXPECT_EQ(third.floats()[3], 1.5f);
  EXPECT_EQ(second.floats(), nullptr);  // NOLINT(bugprone-use-after-move)
}

TEST(HugePageBuffer, TableViewReadsAndWritesTheBufferRowMajor) {
  constexpr std::size_t kRows = 1000, kDim = 24;
  HugePageBuffer buffer(static_cast<std::int64_t>(kRows * kDim * sizeof(float)));
  const Tensor2 table = table_view(buffer, kRows, kDim);
  EXPECT_EQ(table.data(), buffer.floats());
  EXPECT_EQ(table.extent(0), kRows);
  EXPECT_EQ(table.extent(1), kDim);
  table(2, 5) = 4.0f;
  EXPECT_EQ(buffer.floats()[2 * kDim + 5], 4.0f);
  buffer.floats()[(kRows - 1) * kDim + kDim - 1] = -3.0f;
  EXPECT_EQ(table(kRows - 1, kDim - 1), -3.0f);
}

TEST(HugePageBuffer, TableViewRefusesATableLargerThanTheBuffer) {
  HugePageBuffer buffer(100 * 4);
  EXPECT_NO_THROW(table_view(buffer, 10, 10));
  try {
    table_view(buffer, 11, 10);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "table_view: a [11, 10] fp32 table needs 440 bytes, the buffer holds 400"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace scaletune::kernels
