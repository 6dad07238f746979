#pragma once
// The CUDA device one rank computes on: one compute stream shared by cuBLAS, cuBLASLt, cuDNN
// and our kernels, one handle of each library and one workspace for all of them (DESIGN.md
// "Backends": one compute stream per rank; NCCL on its own stream, ordered by events).
// Communicators attach their streams, so fence() waits for compute and communication alike.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/device/detail/unique_handle.hpp"
#include "harness/device/device_buffer.hpp"

namespace scaletune::device {

/// One rank's CUDA device and what runs on it. Not copyable or movable (streams, handles and
/// the workspace are shared by reference with layers and communicators, which must not outlive
/// it). Single-threaded: one host thread drives it.
class CudaContext final : public core::Device {
 public:
  /// Makes device `ordinal` current (cudaSetDevice) for the calling thread, creates a
  /// non-blocking compute stream, one cuBLAS handle (on the compute stream; CUBLAS_DEFAULT_MATH,
  /// so no TF32 rounding of fp32 products), one cuBLASLt handle, one cuDNN handle (on the
  /// compute stream), and the workspace at the size the cuBLAS documentation recommends for
  /// cublasSetWorkspace (32 MiB from compute capability 9.0, 4 MiB below), which cuBLAS uses.
  /// Throws CudaError "no CUDA device: CudaContext needs one ..." without a device, CudaError
  /// naming the visible count when `ordinal` is outside [0, device_count()), CudaError when a
  /// library call fails, DeviceOutOfMemory when the workspace does not fit.
  explicit CudaContext(int ordinal);
  /// Waits for the compute stream (errors ignored: cleanup never throws), then frees the
  /// workspace and destroys the handles and the stream. Attached streams must be detached.
  ~CudaContext() override;
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  /// The device's index among the visible CUDA devices.
  int ordinal() const { return m_ordinal; }
  /// Name, memory and compute capability of the device.
  const DeviceInfo& info() const { return m_info; }
  /// The stream all compute work of this rank goes to (non-blocking: it does not synchronise
  /// with the legacy default stream).
  cudaStream_t compute_stream() const { return m_compute.get(); }
  /// The rank's cuBLAS handle, bound to compute_stream() and to the workspace.
  cublasHandle_t cublas() const { return m_cublas.get(); }
  /// The rank's cuBLASLt handle (stream and workspace are arguments of each cublasLtMatmul).
  cublasLtHandle_t cublas_lt() const { return m_cublas_lt.get(); }
  /// The rank's cuDNN handle, bound to compute_stream().
  cudnnHandle_t cudnn() const { return m_cudnn.get(); }

  /// The rank's one workspace (cuBLAS, cuBLASLt, cuDNN, our kernels), device memory of at
  /// least `bytes` bytes. When it is smaller, it grows: the device is synchronised
  /// (cudaDeviceSynchronize, so no queued work still uses the old one), a new buffer is
  /// allocated, handed to cuBLAS (cublasSetWorkspace) and the old one freed; the pointer then
  /// changes. When it is large enough, returns it without touching the device, so users call
  /// workspace(their bytes) again at each use rather than keeping the pointer. Grow while
  /// setting up, never inside a timed step. Work using it must run on compute_stream().
  /// Throws DeviceOutOfMemory (std::bad_alloc) when the larger buffer does not fit (the old
  /// one is kept), CudaError when a call fails.
  void* workspace(std::size_t bytes);
  /// Current size of the workspace, bytes.
  std::size_t workspace_bytes() const { return m_workspace.size_bytes(); }

  /// Adds `stream` (e.g. a communicator's) to the streams fence() waits for; attaching a stream
  /// twice keeps one entry. Detach it before destroying it.
  void attach_stream(cudaStream_t stream);
  /// Removes `stream` from the streams fence() waits for (no-op when it is not attached).
  void detach_stream(cudaStream_t stream);

  /// DeviceKind::cuda.
  core::DeviceKind kind() const override { return core::DeviceKind::cuda; }
  /// "cuda:<ordinal> <device name>", e.g. "cuda:1 NVIDIA H200" (as /system/ranks records it).
  std::string name() const override;
  /// Free memory of the device (cudaMemGetInfo), bytes. Throws CudaError.
  std::int64_t memory_free_bytes() const override;
  /// Synchronises the compute stream and every attached stream (cudaStreamSynchronize).
  /// Throws CudaError naming the failed call (StickyCudaError for a sticky error).
  void fence() override;

 private:
  int m_ordinal;
  DeviceInfo m_info;
  detail::UniqueHandle<cudaStream_t, &cudaStreamDestroy> m_compute;
  detail::UniqueHandle<cublasHandle_t, &cublasDestroy> m_cublas;
  detail::UniqueHandle<cublasLtHandle_t, &cublasLtDestroy> m_cublas_lt;
  detail::UniqueHandle<cudnnHandle_t, &cudnnDestroy> m_cudnn;
  DeviceBuffer<std::byte> m_workspace;
  std::vector<cudaStream_t> m_attached;
};

}  // namespace scaletune::device
