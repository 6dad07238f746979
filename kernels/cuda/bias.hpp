#pragma once
// Bias of a fully-connected layer on device activations: the forward addition over rows and
// the bias gradient (the column sums of dy), as the host kernels/host/linear.hpp computes them.
// The bias and its gradient are fp32 parameters; activations are fp32, fp16 or bf16.
// Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// y[r, c] += bias[c] in fp32, rounded to `type` (after a GEMM that wrote x w^T into y).
/// y [rows, cols] of element type `type`, bias [cols] fp32; device, row-major, contiguous.
/// Throws std::invalid_argument when a size is < 0, a pointer is null (rows * cols > 0) or
/// `type` is not fp32, fp16 or bf16; CudaError when the launch fails.
void bias_add(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
              const float* bias, void* y);

/// db[c] = sum_r dy[r, c] in fp32, plus the old db[c] when `accumulate` (GradMode::accumulate
/// of the host linear_backward: the sum is formed first, then added). Deterministic (a fixed
/// summation order per shape). dy [rows, cols] of element type `type`, db [cols] fp32; device,
/// row-major, contiguous. rows == 0 gives db = 0 (or leaves it when accumulating). Throws as
/// bias_add (db is needed whenever cols > 0).
void bias_grad(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
               const void* dy, float* db, bool accumulate);

}  // namespace scaletune::kernels::cuda
