#pragma once
// GELU activation (tanh form, as the host kernels/host/gelu.hpp) on device activations (fp32,
// fp16 or bf16), forward and backward, in fp32 (detail/gelu_math.hpp). Asynchronous on
// `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) element-wise (Hendrycks & Gimpel 2016,
/// GPT-2's gelu). x, y [count], device, contiguous, element type `type`; y may alias x.
/// Throws std::invalid_argument when count < 0, a pointer is null (count > 0) or `type` is not
/// fp32, fp16 or bf16; CudaError when the launch fails.
void gelu_forward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                  void* y);

/// dx = dy * d/dx gelu(x) (the derivative of the tanh form, as the host gelu_backward). x, dy,
/// dx [count], device, contiguous, element type `type`; dx may alias dy. Throws as
/// gelu_forward.
void gelu_backward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                   const void* dy, void* dx);

}  // namespace scaletune::kernels::cuda
