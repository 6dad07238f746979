// ops::MemoryLedger on the host backend: the bytes of what it made and counted add up, what it
// makes is zero-filled, and the budget is checked before the backend allocates.

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <string>

#include "harness/core/memory_budget.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "test_ops_support.hpp"

namespace scaletune::ops {
namespace {

using kernels::HostBackend;
using kernels::test::throws_naming;

TEST(OpsMemoryLedger, BytesOfMadeAndCountedTensorsAddUp) {
  HostBackend backend;
  MemoryLedger ledger(backend);
  EXPECT_EQ(&ledger.backend(), &backend);
  EXPECT_EQ(ledger.budget_bytes(), 0);
  const Tensor a = ledger.make("a", DType::fp32, {2, 3});
  const Tensor b = ledger.make("b", DType::fp16, {5});
  const Tensor c = ledger.make("c", DType::int64, {3});
  EXPECT_EQ(a.describe(), "[2, 3] fp32");
  EXPECT_EQ(b.describe(), "[5] fp16");
  EXPECT_EQ(ledger.bytes(), 2 * 3 * 4 + 5 * 2 + 3 * 8);
  ledger.count("workspace", 1000);
  EXPECT_EQ(ledger.bytes(), 58 + 1000);
  EXPECT_NE(a.data(), b.data());
  EXPECT_NE(b.data(), c.data());
}

TEST(OpsMemoryLedger, MadeTensorsAreZeroFilled) {
  HostBackend backend;
  MemoryLedger ledger(backend);
  const Tensor t = ledger.make("t", DType::fp64, {4, 4});
  for (std::int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.as<double>()[i], 0.0);
}

TEST(OpsMemoryLedger, MakePastTheBudgetThrowsBeforeAllocating) {
  HostBackend backend;
  MemoryLedger ledger(backend, 100);
  ledger.make("first", DType::fp32, {20});
  EXPECT_TRUE(throws_naming<core::MemoryBudgetExceeded>(
      [&] { ledger.make("conv1 weights", DType::fp32, {6}); }, "conv1 weights"));
  EXPECT_EQ(ledger.bytes(), 80);
  ledger.make("fits", DType::fp32, {5});
  EXPECT_EQ(ledger.bytes(), 100);
  // 2^50 bytes exceed any address space: only a check made before allocating names the
  // budget; an allocation tried first throws a plain std::bad_alloc.
  MemoryLedger big(backend, std::int64_t{1} << 30);
  EXPECT_THROW(big.make("table", DType::fp32, {1 << 24, 1 << 24}), core::MemoryBudgetExceeded);
  EXPECT_EQ(big.bytes(), 0);
}

TEST(OpsMemoryLedger, BudgetErrorIsABadAlloc) {
  HostBackend backend;
  MemoryLedger ledger(backend, 10);
  EXPECT_TRUE(throws_naming<std::bad_alloc>([&] { ledger.make("x", DType::fp64, {2}); }, "(at x)"));
}

TEST(OpsMemoryLedger, UnlimitedLedgerPassesTheBackendsOutOfMemoryOn) {
  HostBackend backend;
  MemoryLedger ledger(backend);
  try {
    ledger.make("table", DType::fp32, {1 << 24, 1 << 24});
    ADD_FAILURE() << "no exception for a 2^50-byte tensor";
  } catch (const core::MemoryBudgetExceeded&) {
    ADD_FAILURE() << "a ledger without a budget reported the budget";
  } catch (const std::bad_alloc&) {
  }
  EXPECT_EQ(ledger.bytes(), 0);
}

TEST(OpsMemoryLedger, CountPastTheBudgetThrowsAndCountsNothing) {
  HostBackend backend;
  MemoryLedger ledger(backend, 1000);
  ledger.count("state", 600);
  EXPECT_TRUE(
      throws_naming<core::MemoryBudgetExceeded>([&] { ledger.count("im2col", 401); }, "im2col"));
  EXPECT_EQ(ledger.bytes(), 600);
  ledger.count("im2col", 400);
  EXPECT_EQ(ledger.bytes(), 1000);
}

}  // namespace
}  // namespace scaletune::ops
