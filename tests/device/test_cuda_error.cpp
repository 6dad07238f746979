// The checked CUDA, cuBLAS and cuDNN wrappers: which errors are sticky (CUDA 13 driver_types.h
// documents them as leaving "the process in an inconsistent state"), the exception types they
// throw (a sticky error is a CudaError and a core::FatalDeviceError, caught once as
// std::exception), and the message, which names the call, file:line and the error context.
// Needs no device: the wrappers only format and classify codes.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "harness/core/error_context.hpp"
#include "harness/core/fatal_device_error.hpp"
#include "harness/device/cuda_error.hpp"

namespace scaletune::device {
namespace {

constexpr cudaError_t kSticky[] = {cudaErrorIllegalAddress,      cudaErrorLaunchFailure,
                                   cudaErrorIllegalInstruction,  cudaErrorMisalignedAddress,
                                   cudaErrorInvalidAddressSpace, cudaErrorInvalidPc,
                                   cudaErrorHardwareStackError,  cudaErrorAssert,
                                   cudaErrorECCUncorrectable,    cudaErrorLaunchTimeout,
                                   cudaErrorContained,           cudaErrorTensorMemoryLeak,
                                   cudaErrorExternalDevice,      cudaErrorMpsClientTerminated};

// Errors after which CUDA goes on working: argument errors, a full device, "not ready".
constexpr cudaError_t kRecoverable[] = {
    cudaErrorInvalidValue,  cudaErrorMemoryAllocation,     cudaErrorNotReady,
    cudaErrorInvalidDevice, cudaErrorLaunchOutOfResources, cudaErrorNoDevice};

TEST(CudaErrorCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(check_cuda(cudaSuccess, "cudaFoo()", "f.cpp", 1));
  EXPECT_NO_THROW(check_cublas(CUBLAS_STATUS_SUCCESS, "cublasFoo()", "f.cpp", 1));
  EXPECT_NO_THROW(check_cudnn(CUDNN_STATUS_SUCCESS, "cudnnFoo()", "f.cpp", 1));
}

TEST(CudaErrorCheck, StickyErrorsAreFatalDeviceErrors) {
  for (const cudaError_t code : kSticky) {
    SCOPED_TRACE(cudaGetErrorName(code));
    EXPECT_TRUE(is_sticky(code));
    EXPECT_THROW(check_cuda(code, "cudaFoo()", "f.cpp", 1), StickyCudaError);
    EXPECT_THROW(check_cuda(code, "cudaFoo()", "f.cpp", 1), core::FatalDeviceError);
    EXPECT_THROW(check_cuda(code, "cudaFoo()", "f.cpp", 1), CudaError);
    EXPECT_THROW(check_cuda(code, "cudaFoo()", "f.cpp", 1), std::runtime_error);
  }
}

TEST(CudaErrorCheck, OtherErrorsAreCudaErrorsOnly) {
  for (const cudaError_t code : kRecoverable) {
    SCOPED_TRACE(cudaGetErrorName(code));
    EXPECT_FALSE(is_sticky(code));
    try {
      check_cuda(code, "cudaFoo()", "f.cpp", 1);
      ADD_FAILURE() << "expected CudaError";
    } catch (const core::FatalDeviceError&) {
      ADD_FAILURE() << "a recoverable error must not be a FatalDeviceError";
    } catch (const CudaError&) {
    }
  }
  EXPECT_FALSE(is_sticky(cudaSuccess));
}

TEST(CudaErrorCheck, StickyErrorIsCaughtOnceAsStdException) {
  // Two paths lead to std::runtime_error (CudaError and FatalDeviceError); it is one virtual
  // base, so a handler for std::exception matches.
  try {
    check_cuda(cudaErrorIllegalAddress, "kernel<<<...>>>", "k.cu", 9);
    FAIL() << "expected an exception";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cudaErrorIllegalAddress"), std::string::npos);
  }
}

TEST(CudaErrorCheck, MessageNamesCallPlaceContextAndError) {
  core::set_error_context(3, "gpu12", "cuda:1 NVIDIA H200");
  try {
    check_cuda(cudaErrorIllegalAddress, "cudaStreamSynchronize(s)", "f.cpp", 7);
    FAIL() << "expected StickyCudaError";
  } catch (const StickyCudaError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("cudaStreamSynchronize(s) failed at f.cpp:7 on rank 3 (host gpu12, "
                          "device cuda:1 NVIDIA H200): cudaErrorIllegalAddress (") +
                  cudaGetErrorString(cudaErrorIllegalAddress) + ")");
  }
  try {
    check_cublas(CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm(h)", "g.cpp", 8);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("cublasSgemm(h) failed at g.cpp:8 on rank 3 (host gpu12, device cuda:1 "
                          "NVIDIA H200): ") +
                  cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE));
    EXPECT_EQ(dynamic_cast<const core::FatalDeviceError*>(&e), nullptr);
  }
  try {
    check_cudnn(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionForward(h)", "h.cpp", 9);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM)),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("on rank 3 (host gpu12"), std::string::npos) << e.what();
  }
}

TEST(CudaErrorCheck, MacroNamesTheCallText) {
  try {
    SCALETUNE_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cudaErrorInvalidValue failed at ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("test_cuda_error.cpp:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scaletune::device
