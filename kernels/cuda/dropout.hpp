#pragma once
// Inverted dropout on device activations (fp32, fp16 or bf16) with the host's counter-based
// mask (kernels/host/dropout.hpp, DropoutMask): the same (p, seed, step, first_row, cols) keep
// the same elements bit for bit on host and device, and no mask is stored. Asynchronous on
// `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels::cuda {

/// y = x * keep / (1 - p) (inverted dropout, Srivastava et al. 2014; p = 0 is the identity),
/// keep drawn as the host dropout_forward draws it. x, y [rows, cols], device, row-major,
/// contiguous, element type `type`; y may alias x. Throws std::invalid_argument when a size is
/// < 0, a pointer is null (rows * cols > 0), p is outside [0, 1), first_row < 0 or `type` is
/// not fp32, fp16 or bf16; CudaError when the launch fails.
void dropout_forward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                     const ops::DropoutMask& draw, const void* x, void* y);

/// dx = dy * keep / (1 - p) with the mask recomputed from `draw` (pass the forward's). dy, dx
/// [rows, cols], device, row-major, contiguous, element type `type`; dx may alias dy. Throws as
/// dropout_forward.
void dropout_backward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                      const ops::DropoutMask& draw, const void* dy, void* dx);

}  // namespace scaletune::kernels::cuda
