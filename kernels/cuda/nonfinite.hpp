#pragma once
// The non-finite check of dynamic loss scaling: whether any element of a device buffer is NaN
// or +-inf, reported through a device flag, so the optimizer kernels can skip the step
// (MixedPrecisionStep::found_nonfinite) without the host waiting for the answer.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// Sets *found = 1 when an element of data is NaN or +-inf; never clears it, so one flag
/// (zeroed by the caller, e.g. with cudaMemsetAsync) collects the checks of several buffers.
/// data [count] of element type `type` (fp32, fp16 or bf16), found one int; both device. Queued
/// on `stream`, no synchronisation. Throws std::invalid_argument when count < 0, a pointer is
/// null (count > 0) or `type` is not fp32, fp16 or bf16; CudaError when the launch fails.
void check_nonfinite(cudaStream_t stream, core::DType type, std::int64_t count, const void* data,
                     int* found);

}  // namespace scaletune::kernels::cuda
