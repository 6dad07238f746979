#pragma once
// Column sums of a row-major [rows, cols] matrix (nvcc only), for parameter gradients that sum
// over the rows (bias, LayerNorm gamma and beta): one block per tile of 32 columns, its 32
// warps striding over the rows (lane = column, so each warp's loads coalesce), then one
// cub::WarpReduce per column over the 32 per-warp partial sums. The summation order is fixed
// by (rows, cols), so results are deterministic.

#include <cuda_runtime_api.h>

#include <cub/warp/warp_reduce.cuh>

#include <cstdint>

#include "harness/device/cuda_error.hpp"

namespace scaletune::kernels::cuda::detail {

/// Columns per block (one per lane) and warps per block (each strides the rows).
inline constexpr int kColumnTile = 32;
inline constexpr int kRowWarps = 32;

/// Where N column sums go: out[k][c] = sum (+ out[k][c] when accumulate), fp32, device.
template <int N>
struct ColumnOutputs {
  float* out[N];
  bool accumulate;
};

/// Contrib: `__device__ void operator()(std::int64_t r, std::int64_t c, float (&sums)[N])`
/// adding row r's contributions at column c to sums.
template <int N, class Contrib>
__global__ void __launch_bounds__(kColumnTile* kRowWarps)
    column_sums_kernel(std::int64_t rows, std::int64_t cols, Contrib contrib,
                       ColumnOutputs<N> outputs) {
  __shared__ float partial[N][kRowWarps][kColumnTile + 1];  // +1: no bank conflicts
  __shared__ typename cub::WarpReduce<float>::TempStorage temp[kRowWarps];
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const std::int64_t tile = std::int64_t{blockIdx.x} * kColumnTile;

  float sums[N] = {};
  if (tile + lane < cols)
    for (std::int64_t r = warp; r < rows; r += kRowWarps) contrib(r, tile + lane, sums);
  for (int k = 0; k < N; ++k) partial[k][warp][lane] = sums[k];
  __syncthreads();

  // Warp w now sums column tile + w: lane l holds warp l's partial.
  const std::int64_t col = tile + warp;
  for (int k = 0; k < N; ++k) {
    const float total = cub::WarpReduce<float>(temp[warp]).Sum(partial[k][lane][warp]);
    __syncwarp();  // temp is reused by the next k
    if (lane == 0 && col < cols) {
      float* out = outputs.out[k];
      out[col] = total + (outputs.accumulate ? out[col] : 0.0f);
    }
  }
}

/// Queues the column sums of `contrib` over [rows, cols] into `outputs` on `stream` (nothing
/// when cols == 0; rows == 0 writes zeros, or leaves accumulated outputs unchanged).
template <int N, class Contrib>
void column_sums(cudaStream_t stream, std::int64_t rows, std::int64_t cols, const Contrib& contrib,
                 const ColumnOutputs<N>& outputs) {
  if (cols <= 0) return;
  const auto blocks = static_cast<unsigned>((cols + kColumnTile - 1) / kColumnTile);
  column_sums_kernel<N>
      <<<blocks, dim3(kColumnTile, kRowWarps), 0, stream>>>(rows, cols, contrib, outputs);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace scaletune::kernels::cuda::detail
