#include "causal_softmax.hpp"

#include <algorithm>
#include <cmath>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/block_reduce.cuh"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/causal_softmax_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kThreads = kWarpsPerBlock * 32;
constexpr std::int64_t kMaxBlocks = 1 << 20;  // more rows: warps stride over them

using WarpStorage = cub::WarpReduce<float>::TempStorage;

int warp_row_blocks(std::int64_t rows) {
  return static_cast<int>(std::min((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, kMaxBlocks));
}

/// One warp per row (r, i) of the R * S rows: the maximum, the sum of exponentials, then p.
template <class T>
__global__ void __launch_bounds__(kThreads)
    causal_softmax_forward_kernel(std::int64_t rows, std::int64_t seq, const T* scores, T* p) {
  __shared__ WarpStorage temp[kWarpsPerBlock];
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warps = std::int64_t{gridDim.x} * kWarpsPerBlock;
  for (std::int64_t row = std::int64_t{blockIdx.x} * kWarpsPerBlock + warp; row < rows;
       row += warps) {
    const std::int64_t i = row % seq;  // the query; keys 0..i are visible
    const T* s = scores + row * seq;
    float row_max = -INFINITY;
    for (std::int64_t j = lane; j <= i; j += 32) row_max = fmaxf(row_max, detail::to_float(s[j]));
    row_max = detail::warp_all_reduce(row_max, detail::FloatMax{}, temp[warp]);
    __syncwarp();
    float sum = 0.0f;
    for (std::int64_t j = lane; j <= i; j += 32) sum += expf(detail::to_float(s[j]) - row_max);
    const float inv_sum = 1.0f / detail::warp_all_reduce(sum, detail::Plus{}, temp[warp]);
    __syncwarp();
    T* out = p + row * seq;  // may alias s: each element is read, then written, by one lane
    for (std::int64_t j = lane; j < seq; j += 32)
      out[j] = detail::from_float<T>(
          detail::causal_visible(i, j)
              ? detail::causal_softmax_prob(detail::to_float(s[j]), row_max, inv_sum)
              : 0.0f);
  }
}

/// One warp per row: the dot product of p and dp over the visible keys, then dscores.
template <class T>
__global__ void __launch_bounds__(kThreads)
    causal_softmax_backward_kernel(std::int64_t rows, std::int64_t seq, const T* p, const T* dp,
                                   T* dscores) {
  __shared__ WarpStorage temp[kWarpsPerBlock];
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warps = std::int64_t{gridDim.x} * kWarpsPerBlock;
  for (std::int64_t row = std::int64_t{blockIdx.x} * kWarpsPerBlock + warp; row < rows;
       row += warps) {
    const std::int64_t i = row % seq;
    const T* pr = p + row * seq;
    const T* dpr = dp + row * seq;
    float dot = 0.0f;
    for (std::int64_t j = lane; j <= i; j += 32)
      dot += detail::to_float(pr[j]) * detail::to_float(dpr[j]);
    dot = detail::warp_all_reduce(dot, detail::Plus{}, temp[warp]);
    __syncwarp();
    T* out = dscores + row * seq;  // may alias dpr: read, then written, by one lane
    for (std::int64_t j = lane; j < seq; j += 32)
      out[j] = detail::from_float<T>(
          detail::causal_visible(i, j)
              ? detail::causal_softmax_grad(detail::to_float(pr[j]), detail::to_float(dpr[j]), dot)
              : 0.0f);
  }
}

/// batch_heads * seq rows, after checking the sizes (the matrices hold rows * seq elements).
std::int64_t checked_rows(const char* op, std::int64_t batch_heads, std::int64_t seq) {
  detail::require_size(op, "batch_heads", batch_heads);
  detail::require_size(op, "seq", seq);
  const std::int64_t rows = detail::checked_elements(op, batch_heads, seq);
  static_cast<void>(detail::checked_elements(op, rows, seq));
  return rows;
}

}  // namespace

void causal_softmax_forward(cudaStream_t stream, core::DType type, std::int64_t batch_heads,
                            std::int64_t seq, const void* scores, void* p) {
  constexpr const char* kOp = "causal_softmax_forward";
  const std::int64_t rows = checked_rows(kOp, batch_heads, seq);
  detail::require_pointers(kOp, rows, {{"scores", scores}, {"p", p}});
  detail::dispatch_activation(type, kOp, "scores", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows == 0) return;
    causal_softmax_forward_kernel<<<warp_row_blocks(rows), kThreads, 0, stream>>>(
        rows, seq, static_cast<const T*>(scores), static_cast<T*>(p));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

void causal_softmax_backward(cudaStream_t stream, core::DType type, std::int64_t batch_heads,
                             std::int64_t seq, const void* p, const void* dp, void* dscores) {
  constexpr const char* kOp = "causal_softmax_backward";
  const std::int64_t rows = checked_rows(kOp, batch_heads, seq);
  detail::require_pointers(kOp, rows, {{"p", p}, {"dp", dp}, {"dscores", dscores}});
  detail::dispatch_activation(type, kOp, "p", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows == 0) return;
    causal_softmax_backward_kernel<<<warp_row_blocks(rows), kThreads, 0, stream>>>(
        rows, seq, static_cast<const T*>(p), static_cast<const T*>(dp), static_cast<T*>(dscores));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace scaletune::kernels::cuda
