#pragma once
// ReLU forward and backward on device activations (fp32, fp16 or bf16), with the semantics of
// the host ops in kernels/host/activation.hpp. Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// y = max(x, 0) element-wise (Nair & Hinton 2010; NaN gives 0, as the host op). x, y [count],
/// device, contiguous, element type `type`; y may alias x (in place). Throws
/// std::invalid_argument when count < 0, a pointer is null (count > 0) or `type` is not fp32,
/// fp16 or bf16; CudaError when the launch fails.
void relu_forward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                  void* y);

/// dx = dy where y > 0, else 0 (the mask from the forward output y). y, dy, dx [count], device,
/// contiguous, element type `type`; dx may alias dy. Throws as relu_forward.
void relu_backward(cudaStream_t stream, core::DType type, std::int64_t count, const void* y,
                   const void* dy, void* dx);

}  // namespace scaletune::kernels::cuda
