#include "layer_norm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/block_reduce.cuh"
#include "kernels/cuda/detail/column_sums.cuh"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/layer_norm_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

constexpr int kThreads = 256;                    // per row
constexpr std::int64_t kMaxRowBlocks = 1 << 20;  // more rows: blocks stride over them

int row_blocks(std::int64_t rows) {
  return static_cast<int>(std::min(rows, kMaxRowBlocks));
}

/// One block per row: the mean of the row shifted by its first value, the variance about it
/// (two passes), then y (see detail/layer_norm_math.hpp for the shift).
template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_forward_kernel(std::int64_t rows, std::int64_t cols, float eps, const T* x,
                              const float* gamma, const float* beta, T* y, float* mean,
                              float* rstd) {
  const auto n = static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    const float shift = detail::to_float(xr[0]);
    float sum = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
      sum += detail::to_float(xr[c]) - shift;
    const float shifted_mean = detail::block_all_reduce<kThreads>(sum, detail::Plus{}) / n;
    float sum_sq = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
      const float d = (detail::to_float(xr[c]) - shift) - shifted_mean;
      sum_sq += d * d;
    }
    const float r =
        detail::layer_norm_rstd(detail::block_all_reduce<kThreads>(sum_sq, detail::Plus{}), n, eps);
    if (threadIdx.x == 0) {
      mean[row] = shift + shifted_mean;
      rstd[row] = r;
    }
    T* yr = y + row * cols;  // may alias xr: each element is read, then written, by one thread
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
      yr[c] = detail::from_float<T>(detail::layer_norm_output(detail::to_float(xr[c]) - shift,
                                                              shifted_mean, r, gamma[c], beta[c]));
  }
}

/// One block per row: the row sums of g and g * xhat, then dx.
template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_input_grad_kernel(std::int64_t rows, std::int64_t cols, const T* x,
                                 const float* gamma, const T* dy, const float* mean,
                                 const float* rstd, T* dx) {
  const auto n = static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    const T* dyr = dy + row * cols;
    const float mu = mean[row];
    const float r = rstd[row];
    float2 sums = make_float2(0.0f, 0.0f);
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
      const float g = detail::to_float(dyr[c]) * gamma[c];
      sums.x += g;
      sums.y += g * detail::layer_norm_xhat(detail::to_float(xr[c]), mu, r);
    }
    const float2 total = detail::block_all_reduce<kThreads>(sums, detail::PairSum{});
    const float mean_g = total.x / n;
    const float mean_g_xhat = total.y / n;
    T* dxr = dx + row * cols;  // may alias dyr: each element is read, then written, by one thread
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
      const float g = detail::to_float(dyr[c]) * gamma[c];
      const float xhat = detail::layer_norm_xhat(detail::to_float(xr[c]), mu, r);
      dxr[c] =
          detail::from_float<T>(detail::layer_norm_input_grad(g, xhat, r, mean_g, mean_g_xhat));
    }
  }
}

/// Row r's contributions at column c: dy * xhat to dgamma, dy to dbeta.
template <class T>
struct ParameterGradContrib {
  std::int64_t cols;
  const T* x;
  const T* dy;
  const float* mean;
  const float* rstd;
  __device__ void operator()(std::int64_t r, std::int64_t c, float (&sums)[2]) const {
    const float g = detail::to_float(dy[r * cols + c]);
    sums[0] += g * detail::layer_norm_xhat(detail::to_float(x[r * cols + c]), mean[r], rstd[r]);
    sums[1] += g;
  }
};

/// rows >= 0 and cols >= 1, as the host op (a row needs at least one feature).
void require_shape(const char* op, std::int64_t rows, std::int64_t cols) {
  detail::require_size(op, "rows", rows);
  detail::require_positive(op, "cols", cols);
  static_cast<void>(detail::checked_elements(op, rows, cols));
}

}  // namespace

void layer_norm_forward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                        float eps, const void* x, const float* gamma, const float* beta, void* y,
                        float* mean, float* rstd) {
  constexpr const char* kOp = "layer_norm_forward";
  require_shape(kOp, rows, cols);
  detail::require_pointers(
      kOp, rows,
      {{"x", x}, {"gamma", gamma}, {"beta", beta}, {"y", y}, {"mean", mean}, {"rstd", rstd}});
  if (!(eps > 0.0f))
    throw std::invalid_argument(std::string(kOp) + ": eps is " + std::to_string(eps) +
                                ", expected > 0");
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows == 0) return;
    layer_norm_forward_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(
        rows, cols, eps, static_cast<const T*>(x), gamma, beta, static_cast<T*>(y), mean, rstd);
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

void layer_norm_backward(cudaStream_t stream, core::DType type, std::int64_t rows,
                         std::int64_t cols, const void* x, const float* gamma, const void* dy,
                         const float* mean, const float* rstd, void* dx, float* dgamma,
                         float* dbeta) {
  constexpr const char* kOp = "layer_norm_backward";
  require_shape(kOp, rows, cols);
  detail::require_pointers(
      kOp, rows,
      {{"x", x}, {"gamma", gamma}, {"dy", dy}, {"mean", mean}, {"rstd", rstd}, {"dx", dx}});
  detail::require_pointers(kOp, cols, {{"dgamma", dgamma}, {"dbeta", dbeta}});
  if (x != nullptr && x == dx)
    throw std::invalid_argument(std::string(kOp) + ": dx must not alias x");
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* x_t = static_cast<const T*>(x);
    const auto* dy_t = static_cast<const T*>(dy);
    // The parameter gradients read every row of dy, so they are queued before dx (which may
    // alias dy); the stream orders the two.
    detail::column_sums<2>(stream, rows, cols, ParameterGradContrib<T>{cols, x_t, dy_t, mean, rstd},
                           detail::ColumnOutputs<2>{{dgamma, dbeta}, false});
    if (rows == 0) return;
    layer_norm_input_grad_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(
        rows, cols, x_t, gamma, dy_t, mean, rstd, static_cast<T*>(dx));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace scaletune::kernels::cuda
