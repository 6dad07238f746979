#pragma once
// Reductions whose result every thread needs (nvcc only): a block-wide one over cub::BlockReduce
// (one block per row) and a warp-wide one over cub::WarpReduce (one warp per row).

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace scaletune::kernels::cuda::detail {

/// Sum of two floats at once (cub reduction operator), for reductions of pairs.
struct PairSum {
  __device__ float2 operator()(const float2& a, const float2& b) const {
    return make_float2(a.x + b.x, a.y + b.y);
  }
};

/// Larger of two floats (fmaxf: a NaN operand yields the other, as std::fmax on the host).
struct FloatMax {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// Plain sum (cub reduction operator).
struct Plus {
  template <class T>
  __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

/// Reduces `value` over the Threads threads of the block with `op` and returns the result to
/// every thread. Every thread of the block must call it (it synchronises the block twice, so
/// calls may follow each other without further barriers).
template <int Threads, class T, class Op>
__device__ T block_all_reduce(T value, Op op) {
  using Reduce = cub::BlockReduce<T, Threads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ T result;
  const T reduced = Reduce(temp).Reduce(value, op);
  if (threadIdx.x == 0) result = reduced;
  __syncthreads();
  const T all = result;
  __syncthreads();  // temp and result may be reused by the next call
  return all;
}

/// Reduces `value` over the 32 lanes of the calling warp with `op` and returns the result to
/// every lane. `temp` is this warp's cub::WarpReduce<T>::TempStorage; every lane must call it.
template <class T, class Op>
__device__ T warp_all_reduce(T value, Op op, typename cub::WarpReduce<T>::TempStorage& temp) {
  const T reduced = cub::WarpReduce<T>(temp).Reduce(value, op);  // valid in lane 0
  return __shfl_sync(0xffffffffu, reduced, 0);
}

}  // namespace scaletune::kernels::cuda::detail
