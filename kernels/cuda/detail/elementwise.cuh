#pragma once
// One grid-stride kernel for every element-wise op (nvcc only): for_each_index(stream, count,
// op) runs op(i) once for every i in [0, count) on `stream`. Consecutive threads take
// consecutive i, so loads and stores of contiguous buffers coalesce.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "harness/device/cuda_error.hpp"

namespace scaletune::kernels::cuda::detail {

/// Threads per block of the element-wise kernels.
inline constexpr int kElementwiseThreads = 256;
/// At most this many blocks (the grid-stride loop covers the rest): several waves of the 132
/// SMs of an H100/H200 at full occupancy.
inline constexpr std::int64_t kMaxElementwiseBlocks = 8192;

/// Blocks for `count` work items of one thread each, capped at kMaxElementwiseBlocks.
inline int elementwise_blocks(std::int64_t count) {
  const std::int64_t blocks = (count + kElementwiseThreads - 1) / kElementwiseThreads;
  return static_cast<int>(std::min(blocks, kMaxElementwiseBlocks));
}

/// op(i) for i = global thread index, stepping by the grid size.
template <class Op>
__global__ void __launch_bounds__(kElementwiseThreads)
    for_each_index_kernel(std::int64_t count, Op op) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    op(i);
}

/// Queues op(i) for every i in [0, count) on `stream` (nothing when count == 0); checks the
/// launch. Op is a trivially copyable functor with `__device__ void operator()(std::int64_t)`.
template <class Op>
void for_each_index(cudaStream_t stream, std::int64_t count, const Op& op) {
  if (count <= 0) return;
  for_each_index_kernel<<<elementwise_blocks(count), kElementwiseThreads, 0, stream>>>(count, op);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace scaletune::kernels::cuda::detail
