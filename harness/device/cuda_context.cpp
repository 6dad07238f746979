#include "cuda_context.hpp"

#include <algorithm>
#include <utility>

#include "harness/device/cuda_error.hpp"

namespace scaletune::device {

namespace {

/// `ordinal` once it names a visible device; throws CudaError otherwise (no device at all:
/// require_device's "no CUDA device").
int checked_ordinal(int ordinal) {
  const int count = require_device("CudaContext");
  if (ordinal >= 0 && ordinal < count) return ordinal;
  throw CudaError("CudaContext: device ordinal " + std::to_string(ordinal) + " outside [0, " +
                  std::to_string(count) +
                  "), the visible CUDA devices (check CUDA_VISIBLE_DEVICES)");
}

/// The workspace the cuBLAS API reference recommends for cublasSetWorkspace: 32 MiB on Hopper
/// (compute capability 9.0) and later, 4 MiB on earlier devices; bytes.
std::size_t cublas_workspace_bytes(const DeviceInfo& info) {
  return (info.compute_major >= 9 ? 32u : 4u) * (std::size_t{1} << 20);
}

}  // namespace

CudaContext::CudaContext(int ordinal)
    : m_ordinal(checked_ordinal(ordinal)), m_info(device_info(m_ordinal)) {
  SCALETUNE_CUDA_CHECK(cudaSetDevice(m_ordinal));
  cudaStream_t stream = nullptr;
  SCALETUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  m_compute.reset(stream);
  cublasHandle_t blas = nullptr;
  SCALETUNE_CUBLAS_CHECK(cublasCreate(&blas));
  m_cublas.reset(blas);
  // cublasSetStream resets the handle's workspace to cuBLAS's own pool: set the stream first.
  SCALETUNE_CUBLAS_CHECK(cublasSetStream(blas, stream));
  SCALETUNE_CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
  cublasLtHandle_t lt = nullptr;
  SCALETUNE_CUBLAS_CHECK(cublasLtCreate(&lt));
  m_cublas_lt.reset(lt);
  cudnnHandle_t dnn = nullptr;
  SCALETUNE_CUDNN_CHECK(cudnnCreate(&dnn));
  m_cudnn.reset(dnn);
  SCALETUNE_CUDNN_CHECK(cudnnSetStream(dnn, stream));
  workspace(cublas_workspace_bytes(m_info));
}

CudaContext::~CudaContext() {
  static_cast<void>(cudaStreamSynchronize(m_compute.get()));  // cleanup never throws
}

void* CudaContext::workspace(std::size_t bytes) {
  if (bytes <= m_workspace.size_bytes()) return m_workspace.data();
  SCALETUNE_CUDA_CHECK(cudaSetDevice(m_ordinal));
  SCALETUNE_CUDA_CHECK(cudaDeviceSynchronize());
  DeviceBuffer<std::byte> grown(bytes);
  SCALETUNE_CUBLAS_CHECK(cublasSetWorkspace(m_cublas.get(), grown.data(), grown.size_bytes()));
  m_workspace = std::move(grown);
  return m_workspace.data();
}

void CudaContext::attach_stream(cudaStream_t stream) {
  if (std::ranges::find(m_attached, stream) == m_attached.end()) m_attached.push_back(stream);
}

void CudaContext::detach_stream(cudaStream_t stream) {
  std::erase(m_attached, stream);
}

std::string CudaContext::name() const {
  return "cuda:" + std::to_string(m_ordinal) + " " + m_info.name;
}

std::int64_t CudaContext::memory_free_bytes() const {
  SCALETUNE_CUDA_CHECK(cudaSetDevice(m_ordinal));
  return free_memory_bytes();
}

void CudaContext::fence() {
  SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(m_compute.get()));
  for (cudaStream_t stream : m_attached) SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace scaletune::device
