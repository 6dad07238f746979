// The error context every MPI, NCCL and CUDA error names: its formatting from rank, host and
// device, the message format of a failed call, and setting it from one thread while others read.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "harness/core/error_context.hpp"

namespace scaletune::core {
namespace {

TEST(ErrorContext, DescribesRankHostAndDevice) {
  EXPECT_EQ(describe_error_context({3, "gpu12", "cuda:1 NVIDIA H200"}),
            "on rank 3 (host gpu12, device cuda:1 NVIDIA H200)");
  EXPECT_EQ(describe_error_context({0, "node-a", "host-core:5"}),
            "on rank 0 (host node-a, device host-core:5)");
}

TEST(ErrorContext, LeavesOutADeviceNotBoundYet) {
  EXPECT_EQ(describe_error_context({3, "gpu12", ""}), "on rank 3 (host gpu12)");
}

TEST(ErrorContext, IsEmptyBeforeAnythingIsSet) {
  EXPECT_EQ(describe_error_context(ErrorContext{}), "");
  EXPECT_EQ(describe_error_context({-1, "gpu12", "cuda:0 X"}), "");
}

TEST(ErrorContext, FailedCallMessageWithAndWithoutContext) {
  set_error_context(-1, "", "");
  EXPECT_EQ(error_context(), "");
  EXPECT_EQ(failed_call_message("MPI_Barrier(comm)", "a.cpp", 12, "MPI_ERR_COMM: invalid"),
            "MPI_Barrier(comm) failed at a.cpp:12: MPI_ERR_COMM: invalid");
  set_error_context(7, "gpu3", "");
  EXPECT_EQ(failed_call_message("MPI_Barrier(comm)", "a.cpp", 12, "x"),
            "MPI_Barrier(comm) failed at a.cpp:12 on rank 7 (host gpu3): x");
  set_error_context(7, "gpu3", "cuda:0 NVIDIA H200");
  EXPECT_EQ(failed_call_message("cudaMalloc(&p, n)", "b.cpp", 3, "cudaErrorInvalidValue"),
            "cudaMalloc(&p, n) failed at b.cpp:3 on rank 7 (host gpu3, device cuda:0 NVIDIA "
            "H200): cudaErrorInvalidValue");
  const ErrorContext now = current_error_context();
  EXPECT_EQ(now.rank, 7);
  EXPECT_EQ(now.host, "gpu3");
  EXPECT_EQ(now.device, "cuda:0 NVIDIA H200");
}

TEST(ErrorContext, ReadersSeeOneWholeContextWhileItIsSet) {
  // One thread switches between two contexts; readers must only ever see one of the two whole
  // (never rank of one with host of the other).
  const ErrorContext a{1, "host-a", "cuda:0 A"}, b{2, "host-b", "cuda:1 B"};
  set_error_context(a.rank, a.host, a.device);
  std::vector<std::thread> readers;
  std::vector<int> torn(4, 0);
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const ErrorContext c = current_error_context();
        const bool is_a = c.rank == a.rank && c.host == a.host && c.device == a.device;
        const bool is_b = c.rank == b.rank && c.host == b.host && c.device == b.device;
        if (!is_a && !is_b) ++torn[static_cast<std::size_t>(t)];
      }
    });
  for (int i = 0; i < 20000; ++i) {
    const ErrorContext& next = i % 2 == 0 ? b : a;
    set_error_context(next.rank, next.host, next.device);
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(torn, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace scaletune::core
