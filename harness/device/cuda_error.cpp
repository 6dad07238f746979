#include "cuda_error.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "harness/core/error_context.hpp"

namespace scaletune::device {

namespace {

/// "cudaErrorIllegalAddress (an illegal memory access was encountered)".
std::string describe_cuda(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

/// A library call failed with `what`: StickyCudaError when the context holds a sticky error
/// (cudaPeekAtLastError reports it without clearing it), CudaError otherwise.
[[noreturn]] void fail_library(const char* call, const char* file, int line,
                               const std::string& what) {
  const cudaError_t pending = cudaPeekAtLastError();
  if (is_sticky(pending)) {
    throw StickyCudaError(core::failed_call_message(
        call, file, line, what + "; the CUDA context holds " + describe_cuda(pending)));
  }
  throw CudaError(core::failed_call_message(call, file, line, what));
}

}  // namespace

bool is_sticky(int code) {
  switch (static_cast<cudaError_t>(code)) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorContained:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorExternalDevice:
    case cudaErrorMpsClientTerminated:
      return true;
    default:
      return false;
  }
}

void check_cuda(int code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  const std::string message =
      core::failed_call_message(call, file, line, describe_cuda(static_cast<cudaError_t>(code)));
  if (is_sticky(code)) throw StickyCudaError(message);
  throw CudaError(message);
}

void check_cublas(int code, const char* call, const char* file, int line) {
  if (code == CUBLAS_STATUS_SUCCESS) return;
  fail_library(call, file, line, cublasGetStatusString(static_cast<cublasStatus_t>(code)));
}

void check_cudnn(int code, const char* call, const char* file, int line) {
  if (code == CUDNN_STATUS_SUCCESS) return;
  fail_library(call, file, line, cudnnGetErrorString(static_cast<cudnnStatus_t>(code)));
}

}  // namespace scaletune::device
