// HostBackend's identity and memory: what it computes in, zero-filled aligned allocations from
// the heap and (2 MiB and more) from the huge-page mapping, and synchronous upload/download.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "kernels/host/huge_page_buffer.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using ops::DType;
using test::tensor_of;
using test::throws_naming;

std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

TEST(HostBackend, RunsOnHostMemoryAndComputesInFp32Only) {
  const HostBackend backend;
  EXPECT_EQ(backend.kind(), ops::BackendKind::host);
  EXPECT_EQ(backend.memory_space(), core::MemorySpace::host);
  EXPECT_TRUE(backend.computes_in(DType::fp32));
  EXPECT_FALSE(backend.computes_in(DType::fp16));
  EXPECT_FALSE(backend.computes_in(DType::bf16));
  EXPECT_EQ(backend.workspace_bytes(), 0);
}

TEST(HostBackend, AllocateIsZeroFilledAndAligned) {
  HostBackend backend;
  constexpr auto kHuge = static_cast<std::size_t>(HugePageBuffer::kAlignmentBytes);
  for (const std::size_t bytes :
       {std::size_t{1}, std::size_t{100}, std::size_t{4096}, kHuge - 1, kHuge, 5 * kHuge + 3}) {
    const ops::Buffer buffer = backend.allocate(bytes, "test");
    ASSERT_NE(buffer.data(), nullptr) << bytes;
    EXPECT_EQ(buffer.bytes(), bytes);
    EXPECT_EQ(address(buffer.data()) % (bytes >= kHuge ? kHuge : 64), 0u) << bytes;
    const auto* first = static_cast<const std::byte*>(buffer.data());
    EXPECT_TRUE(std::all_of(first, first + bytes, [](std::byte b) { return b == std::byte{0}; }))
        << bytes;
  }
  EXPECT_EQ(backend.allocate(0, "empty").bytes(), 0u);
}

TEST(HostBackend, HeapMemoryIsZeroAgainAfterReuse) {
  HostBackend backend;
  for (int round = 0; round < 3; ++round) {
    const ops::Buffer buffer = backend.allocate(1000, "reused");
    auto* bytes = static_cast<unsigned char*>(buffer.data());
    EXPECT_TRUE(std::all_of(bytes, bytes + 1000, [](unsigned char b) { return b == 0; }));
    std::fill(bytes, bytes + 1000, static_cast<unsigned char>(0xAB));
  }
}

TEST(HostBackend, UploadAndDownloadCopyTheTensorsBytes) {
  HostBackend backend;
  const ops::Buffer buffer = backend.allocate(6 * sizeof(float), "x");
  const ops::Tensor t = buffer.tensor(DType::fp32, {2, 3});
  const std::vector<float> host = {1.5f, -2.0f, 0.25f, 8.0f, -0.0f, 3.0f};
  backend.upload(t, std::as_bytes(std::span<const float>(host)));
  std::vector<float> back(6);
  backend.download(t, std::as_writable_bytes(std::span<float>(back)));
  EXPECT_EQ(back, host);
  EXPECT_EQ(static_cast<const float*>(buffer.data())[3], 8.0f);
}

TEST(HostBackend, UploadAndDownloadRefuseAnotherSize) {
  HostBackend backend;
  std::vector<float> storage(4);
  const ops::Tensor t = tensor_of(storage, {4});
  std::vector<std::byte> bytes(12);
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { backend.upload(t, bytes); },
                                                   "HostBackend::upload: 12 bytes for [4] fp32"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { backend.download(t, bytes); },
                                                   "HostBackend::download: 12 bytes for [4] fp32"));
}

}  // namespace
}  // namespace scaletune::kernels
