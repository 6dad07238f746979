#pragma once
// Element-wise arithmetic on device activations (fp32, fp16 or bf16): the residual addition,
// scaling by a constant and filling. Math in fp32, stores rounded to nearest even.
// Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// y += x element-wise (the residual connection; host: kernels/host/activation.hpp
/// add_inplace). x, y [count], device, contiguous, element type `type`. Throws
/// std::invalid_argument when count < 0, a pointer is null (count > 0) or `type` is not fp32,
/// fp16 or bf16; CudaError when the launch fails.
void add_inplace(cudaStream_t stream, core::DType type, std::int64_t count, const void* x, void* y);

/// y = alpha * x element-wise. x, y [count], device, contiguous, element type `type`; y may
/// alias x (in place). Throws as add_inplace.
void scale(cudaStream_t stream, core::DType type, std::int64_t count, float alpha, const void* x,
           void* y);

/// y = value (rounded to `type` once) for every element. y [count], device, element type
/// `type`. Throws as add_inplace.
void fill(cudaStream_t stream, core::DType type, std::int64_t count, float value, void* y);

}  // namespace scaletune::kernels::cuda
