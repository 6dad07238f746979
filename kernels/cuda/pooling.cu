#include "kernels/cuda/pooling.hpp"

#include <cub/warp/warp_reduce.cuh>

#include <cstdint>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/pooling_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

using detail::from_float;
using detail::kBlockThreads;
using detail::to_float;

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kBlockThreads / kWarp;

/// NCHW forward: one warp per (n, c) plane of `area` contiguous values.
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    forward_nchw_kernel(std::int64_t planes, std::int64_t area, const T* x, T* y) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage storage[kWarpsPerBlock];
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const std::int64_t plane = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (plane >= planes) return;  // uniform over the warp
  const T* values = x + plane * area;
  float sum = 0.0f;
  for (std::int64_t i = lane; i < area; i += kWarp) sum = detail::add_rn(sum, to_float(values[i]));
  sum = WarpReduce(storage[warp]).Sum(sum);
  if (lane == 0) y[plane] = from_float<T>(detail::plane_mean(sum, area));
}

/// NHWC forward: one thread per (n, c); grid.y walks the batch.
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    forward_nhwc_kernel(std::int64_t channels, std::int64_t area, const T* x, T* y) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const std::int64_t n = blockIdx.y;
  if (c >= channels) return;
  const T* image = x + n * area * channels + c;
  float sum = 0.0f;
  for (std::int64_t s = 0; s < area; ++s) sum = detail::add_rn(sum, to_float(image[s * channels]));
  y[n * channels + c] = from_float<T>(detail::plane_mean(sum, area));
}

/// Backward, either layout: one thread per element i of dx, reading dy at its (n, c) plane
/// (NCHW: i / area; NHWC: n = i / (area C), c = i % C).
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    backward_kernel(std::int64_t elements, std::int64_t channels, std::int64_t area, bool nhwc,
                    float inv_area, const T* dy, T* dx) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (i >= elements) return;
  const std::int64_t plane = nhwc ? i / (area * channels) * channels + i % channels : i / area;
  const float g = to_float(dy[plane]);
  dx[i] = from_float<T>(detail::avg_pool_gradient(g, inv_area));
}

void check_shape(const char* kernel, const ActivationShape& shape) {
  detail::require_positive(kernel, "N", shape.n);
  detail::require_positive(kernel, "C", shape.c);
  detail::require_positive(kernel, "H", shape.h);
  detail::require_positive(kernel, "W", shape.w);
}

constexpr const char* kForward = "global_avg_pool_forward";
constexpr const char* kBackward = "global_avg_pool_backward";

}  // namespace

void global_avg_pool_forward(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                             const void* x, void* y) {
  check_shape(kForward, shape);
  detail::require_pointers(kForward, 1, {{"x", x}, {"y", y}});
  detail::dispatch_activation(dtype, kForward, "x and y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* in = static_cast<const T*>(x);
    auto* out = static_cast<T*>(y);
    if (shape.layout == ActivationLayout::nchw) {
      const std::int64_t planes = shape.n * shape.c;
      forward_nchw_kernel<T>
          <<<detail::grid_x_blocks(kForward, planes, kWarpsPerBlock), kBlockThreads, 0, stream>>>(
              planes, shape.area(), in, out);
    } else {
      const dim3 blocks(detail::grid_x_blocks(kForward, shape.c, kBlockThreads),
                        detail::grid_yz_blocks(kForward, shape.n));
      forward_nhwc_kernel<T><<<blocks, kBlockThreads, 0, stream>>>(shape.c, shape.area(), in, out);
    }
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

void global_avg_pool_backward(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                              const void* dy, void* dx) {
  check_shape(kBackward, shape);
  detail::require_pointers(kBackward, 1, {{"dy", dy}, {"dx", dx}});
  detail::dispatch_activation(dtype, kBackward, "dy and dx", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::int64_t elements = shape.elements();
    backward_kernel<T>
        <<<detail::grid_x_blocks(kBackward, elements, kBlockThreads), kBlockThreads, 0, stream>>>(
            elements, shape.c, shape.area(), shape.layout == ActivationLayout::nhwc,
            detail::inverse_area(shape.area()), static_cast<const T*>(dy), static_cast<T*>(dx));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace scaletune::kernels::cuda
