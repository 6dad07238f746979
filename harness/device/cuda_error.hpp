#pragma once
// Every CUDA runtime, cuBLAS and cuDNN call goes through one checked wrapper that throws
// CudaError naming the call, file:line, rank, host and device (core::failed_call_message;
// cf. kokkos core/src/Cuda/Kokkos_Cuda_Error.hpp). Errors that leave the CUDA context unusable
// throw StickyCudaError, which the sweep recognises as core::FatalDeviceError.

#include <stdexcept>
#include <string>

#include "harness/core/fatal_device_error.hpp"

namespace scaletune::device {

/// A CUDA, cuBLAS or cuDNN call failed. std::runtime_error is a virtual base (see
/// core::FatalDeviceError), so StickyCudaError can be both.
class CudaError : public virtual std::runtime_error {
 public:
  explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

/// A CUDA error after which the process's CUDA context is unusable: every later call returns the
/// same error until the process ends (is_sticky). A core::FatalDeviceError, so a sweep records
/// the running configuration and stops the launch.
class StickyCudaError final : public CudaError, public core::FatalDeviceError {
 public:
  explicit StickyCudaError(const std::string& what)
      : std::runtime_error(what), CudaError(what), core::FatalDeviceError(what) {}
};

/// True for the cudaError_t values the CUDA 13 runtime documents as leaving "the process in an
/// inconsistent state" (driver_types.h): cudaErrorIllegalAddress, cudaErrorLaunchFailure,
/// cudaErrorIllegalInstruction, cudaErrorMisalignedAddress, cudaErrorInvalidAddressSpace,
/// cudaErrorInvalidPc, cudaErrorHardwareStackError, cudaErrorAssert, cudaErrorLaunchTimeout,
/// cudaErrorContained, cudaErrorTensorMemoryLeak, cudaErrorExternalDevice,
/// cudaErrorMpsClientTerminated, and cudaErrorECCUncorrectable (an uncorrectable ECC error:
/// the device's memory can no longer be trusted).
bool is_sticky(int code);

/// Throws when `code` (a cudaError_t) is not cudaSuccess: StickyCudaError when is_sticky(code),
/// CudaError otherwise. The message is core::failed_call_message(call, file, line, "<error
/// name> (<error string>)").
void check_cuda(int code, const char* call, const char* file, int line);
/// Throws CudaError when `code` (a cublasStatus_t) is not CUBLAS_STATUS_SUCCESS;
/// StickyCudaError, naming both, when the CUDA context holds a sticky error (cuBLAS then fails
/// because of it).
void check_cublas(int code, const char* call, const char* file, int line);
/// Throws CudaError when `code` (a cudnnStatus_t) is not CUDNN_STATUS_SUCCESS; StickyCudaError
/// as check_cublas.
void check_cudnn(int code, const char* call, const char* file, int line);

}  // namespace scaletune::device

#define SCALETUNE_CUDA_CHECK(call) \
  ::scaletune::device::check_cuda(static_cast<int>(call), #call, __FILE__, __LINE__)
#define SCALETUNE_CUBLAS_CHECK(call) \
  ::scaletune::device::check_cublas(static_cast<int>(call), #call, __FILE__, __LINE__)
#define SCALETUNE_CUDNN_CHECK(call) \
  ::scaletune::device::check_cudnn(static_cast<int>(call), #call, __FILE__, __LINE__)
