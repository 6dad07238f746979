#pragma once
// Every CUDA runtime, cuBLAS and cuDNN call goes through one checked wrapper that throws
// CudaError naming the call and file:line (cf. kokkos core/src/Cuda/Kokkos_Cuda_Error.hpp).

#include <stdexcept>

namespace scaletune::device {

/// A CUDA, cuBLAS or cuDNN call failed.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws CudaError when `code` (a cudaError_t) is not cudaSuccess.
void check_cuda(int code, const char* call, const char* file, int line);
/// Throws CudaError when `code` (a cublasStatus_t) is not CUBLAS_STATUS_SUCCESS.
void check_cublas(int code, const char* call, const char* file, int line);
/// Throws CudaError when `code` (a cudnnStatus_t) is not CUDNN_STATUS_SUCCESS.
void check_cudnn(int code, const char* call, const char* file, int line);

}  // namespace scaletune::device

#define SCALETUNE_CUDA_CHECK(call) \
  ::scaletune::device::check_cuda(static_cast<int>(call), #call, __FILE__, __LINE__)
#define SCALETUNE_CUBLAS_CHECK(call) \
  ::scaletune::device::check_cublas(static_cast<int>(call), #call, __FILE__, __LINE__)
#define SCALETUNE_CUDNN_CHECK(call) \
  ::scaletune::device::check_cudnn(static_cast<int>(call), #call, __FILE__, __LINE__)
