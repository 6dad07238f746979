#include "cuda_error.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

namespace scaletune::device {

namespace {
[[noreturn]] void fail(const char* call, const char* file, int line, const std::string& what) {
  throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  what);
}
}  // namespace

void check_cuda(int code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  const auto err = static_cast<cudaError_t>(code);
  fail(call, file, line, std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")");
}

void check_cublas(int code, const char* call, const char* file, int line) {
  if (code == CUBLAS_STATUS_SUCCESS) return;
  fail(call, file, line, cublasGetStatusString(static_cast<cublasStatus_t>(code)));
}

void check_cudnn(int code, const char* call, const char* file, int line) {
  if (code == CUDNN_STATUS_SUCCESS) return;
  fail(call, file, line, cudnnGetErrorString(static_cast<cudnnStatus_t>(code)));
}

}  // namespace scaletune::device
