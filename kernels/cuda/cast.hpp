#pragma once
// Conversions between activation element types (fp32, fp16, bf16) on the device: loads are
// exact, stores round to nearest even (IEEE roundTiesToEven, as Eigen's half and bfloat16 on
// the host), and the mixed-precision accumulation of a 16-bit value into an fp32 buffer.
// Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// dst[i] = src[i] converted from src_type to dst_type (fp32, fp16 or bf16 each; the same type
/// copies). src, dst [count], device, contiguous, not overlapping. Throws std::invalid_argument
/// when count < 0, a pointer is null (count > 0) or a type is not fp32, fp16 or bf16;
/// CudaError when the launch fails.
void cast(cudaStream_t stream, std::int64_t count, core::DType src_type, const void* src,
          core::DType dst_type, void* dst);

/// dst[i] += float(src[i]) in fp32 (e.g. a 16-bit gradient into an fp32 accumulator). src
/// [count] of src_type (fp32, fp16 or bf16), dst [count] fp32; device, contiguous. Throws as
/// cast.
void accumulate_cast(cudaStream_t stream, std::int64_t count, core::DType src_type, const void* src,
                     float* dst);

}  // namespace scaletune::kernels::cuda
