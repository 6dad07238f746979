// ops::Buffer: it owns its memory, calls the release function exactly once with its data
// (also when ownership moved), and its tensor views fit within its bytes.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/ops/buffer.hpp"
#include "test_ops_support.hpp"

namespace scaletune::ops {
namespace {

using kernels::test::throws_naming;

/// Records every pointer a release function was called with.
struct ReleaseLog {
  std::vector<void*> released;
  Buffer::Release release() {
    return [this](void* p) { released.push_back(p); };
  }
};

TEST(OpsBuffer, ReleasesItsDataOnceWhenItGoes) {
  std::array<float, 4> storage{};
  ReleaseLog log;
  {
    const Buffer b(storage.data(), sizeof(storage), log.release());
    EXPECT_EQ(b.data(), storage.data());
    EXPECT_EQ(b.bytes(), sizeof(storage));
    EXPECT_TRUE(log.released.empty());
  }
  EXPECT_EQ(log.released, std::vector<void*>{storage.data()});
}

TEST(OpsBuffer, MoveConstructionHandsOwnershipOver) {
  std::array<float, 4> storage{};
  ReleaseLog log;
  {
    Buffer a(storage.data(), 16, log.release());
    const Buffer b(std::move(a));
    EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state
    EXPECT_EQ(a.bytes(), 0u);
    EXPECT_EQ(b.data(), storage.data());
    EXPECT_EQ(b.bytes(), 16u);
  }
  EXPECT_EQ(log.released, std::vector<void*>{storage.data()});
}

TEST(OpsBuffer, MoveAssignmentReleasesTheOldMemoryAtOnce) {
  std::array<float, 2> first{}, second{};
  ReleaseLog log;
  {
    Buffer a(first.data(), 8, log.release());
    Buffer b(second.data(), 8, log.release());
    a = std::move(b);
    EXPECT_EQ(log.released, std::vector<void*>{first.data()});
    EXPECT_EQ(a.data(), second.data());
    EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state
  }
  EXPECT_EQ(log.released, (std::vector<void*>{first.data(), second.data()}));
}

TEST(OpsBuffer, TensorViewsTheStartAndMustFit) {
  std::array<std::int64_t, 3> storage{};
  const Buffer b(storage.data(), sizeof(storage), [](void*) {});
  const Tensor t = b.tensor(DType::fp32, {2, 3});
  EXPECT_EQ(t.data(), storage.data());
  EXPECT_EQ(t.describe(), "[2, 3] fp32");
  EXPECT_EQ(b.tensor(DType::int64, {3}).bytes(), 24u);
  EXPECT_TRUE(throws_naming<std::out_of_range>([&] { b.tensor(DType::fp32, {7}); },
                                               "[7] fp32 needs 28 bytes, the buffer has 24"));
}

}  // namespace
}  // namespace scaletune::ops
