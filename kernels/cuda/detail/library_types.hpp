#pragma once
// Element types as cuBLAS and cuDNN name them.

#include <cublas_v2.h>
#include <cudnn.h>
#include <library_types.h>

#include <stdexcept>
#include <string>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda::detail {

/// cuBLAS's type of an fp32, fp16 or bf16 matrix; throws std::invalid_argument naming `op`
/// for any other type.
inline cudaDataType_t cublas_type(const char* op, core::DType dtype) {
  switch (dtype) {
    case core::DType::fp32:
      return CUDA_R_32F;
    case core::DType::fp16:
      return CUDA_R_16F;
    case core::DType::bf16:
      return CUDA_R_16BF;
    default:
      throw std::invalid_argument(std::string(op) + ": cuBLAS takes fp32, fp16 or bf16, not " +
                                  std::string(core::dtype_key(dtype)));
  }
}

/// cuDNN's type of an fp32, fp16 or bf16 tensor; throws std::invalid_argument naming `op` for
/// any other type.
inline cudnnDataType_t cudnn_type(const char* op, core::DType dtype) {
  switch (dtype) {
    case core::DType::fp32:
      return CUDNN_DATA_FLOAT;
    case core::DType::fp16:
      return CUDNN_DATA_HALF;
    case core::DType::bf16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw std::invalid_argument(std::string(op) + ": cuDNN takes fp32, fp16 or bf16, not " +
                                  std::string(core::dtype_key(dtype)));
  }
}

}  // namespace scaletune::kernels::cuda::detail
