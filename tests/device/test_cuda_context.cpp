// CudaContext: one compute stream shared by the cuBLAS and cuDNN handles, one workspace that
// grows, attached streams that fence() waits for. Needs a device; without one only the "no CUDA
// device" error runs (test_cuda_device.cpp).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "harness/core/device.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::device {
namespace {

using CudaContextOnDevice = testing::ContextTest;
using CudaContextArguments = testing::DeviceTest;

TEST_F(CudaContextOnDevice, DescribesItsDeviceAsSystemRanksDoes) {
  CudaContext& c = context();
  EXPECT_EQ(c.ordinal(), 0);
  EXPECT_EQ(c.kind(), core::DeviceKind::cuda);
  EXPECT_EQ(c.info().name, device_info(0).name);
  EXPECT_EQ(c.name(), "cuda:0 " + device_info(0).name);
  EXPECT_GT(c.memory_free_bytes(), 0);
  EXPECT_LE(c.memory_free_bytes(), c.info().memory_bytes);
}

TEST_F(CudaContextOnDevice, LibrariesShareTheNonBlockingComputeStream) {
  CudaContext& c = context();
  ASSERT_NE(c.compute_stream(), nullptr);
  unsigned int flags = 0;
  SCALETUNE_CUDA_CHECK(cudaStreamGetFlags(c.compute_stream(), &flags));
  EXPECT_EQ(flags, static_cast<unsigned int>(cudaStreamNonBlocking));
  cudaStream_t blas_stream = nullptr, dnn_stream = nullptr;
  SCALETUNE_CUBLAS_CHECK(cublasGetStream(c.cublas(), &blas_stream));
  SCALETUNE_CUDNN_CHECK(cudnnGetStream(c.cudnn(), &dnn_stream));
  EXPECT_EQ(blas_stream, c.compute_stream());
  EXPECT_EQ(dnn_stream, c.compute_stream());
  EXPECT_NE(c.cublas_lt(), nullptr);
}

TEST_F(CudaContextOnDevice, WorkspaceStartsAtCublasRecommendationAndGrows) {
  CudaContext& c = context();
  // cuBLAS API reference, cublasSetWorkspace: 32 MiB on Hopper and later, 4 MiB before.
  const std::size_t mib = std::size_t{1} << 20;
  EXPECT_EQ(c.workspace_bytes(), (c.info().compute_major >= 9 ? 32 : 4) * mib);
  void* first = c.workspace(1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(c.workspace(c.workspace_bytes()), first);  // large enough: the same buffer
  const std::size_t larger = c.workspace_bytes() + 3 * mib + 5;
  void* grown = c.workspace(larger);
  ASSERT_NE(grown, nullptr);
  EXPECT_EQ(c.workspace_bytes(), larger);
  EXPECT_EQ(c.workspace(1), grown);
  // The grown buffer is writable over its whole length.
  SCALETUNE_CUDA_CHECK(cudaMemsetAsync(grown, 0x5a, larger, c.compute_stream()));
  c.fence();
}

TEST_F(CudaContextOnDevice, FenceWaitsForAttachedStreams) {
  CudaContext& c = context();
  cudaStream_t side = nullptr;
  SCALETUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  c.attach_stream(side);
  c.attach_stream(side);  // twice: one entry
  DeviceBuffer<std::byte> big(std::size_t{256} << 20);
  for (int i = 0; i < 8; ++i)
    SCALETUNE_CUDA_CHECK(cudaMemsetAsync(big.data(), i, big.size_bytes(), side));
  c.fence();
  EXPECT_EQ(cudaStreamQuery(side), cudaSuccess);
  c.detach_stream(side);
  c.detach_stream(side);  // not attached: no-op
  SCALETUNE_CUDA_CHECK(cudaStreamDestroy(side));
  c.fence();  // the destroyed stream is no longer waited for
}

TEST_F(CudaContextArguments, OrdinalOutsideTheVisibleDevicesIsNamed) {
  const int count = device_count();
  try {
    CudaContext context(count);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(std::string(e.what()),
              "CudaContext: device ordinal " + std::to_string(count) + " outside [0, " +
                  std::to_string(count) +
                  "), the visible CUDA devices (check CUDA_VISIBLE_DEVICES)");
  }
  EXPECT_THROW(CudaContext context(-1), CudaError);
}

}  // namespace
}  // namespace scaletune::device
