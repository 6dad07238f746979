#include "kernels/cuda/batch_norm.hpp"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/batch_norm_math.hpp"
#include "kernels/cuda/detail/block_reduce.cuh"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

using detail::from_float;
using detail::kBlockThreads;
using detail::to_float;

/// NHWC reduction blocks: 32 channels (x) by 8 rows (y).
constexpr int kNhwcChannels = 32;
constexpr int kNhwcRows = kBlockThreads / kNhwcChannels;

__device__ inline float2 add_pair(float2 a, float2 b) {
  return make_float2(detail::add_rn(a.x, b.x), detail::add_rn(a.y, b.y));
}

/// The forward's terms of element `at` of a channel: (x, x^2).
template <class T>
struct MomentTerms {
  const T* x;
  struct Channel {
    const T* x;
    __device__ float2 operator()(std::int64_t at) const {
      const float v = to_float(x[at]);
      return make_float2(v, detail::mul_rn(v, v));
    }
  };
  __device__ Channel channel(std::int64_t) const { return {x}; }
};

/// The backward's terms of element `at` of channel c: (dy, dy * xhat).
template <class T>
struct GradientTerms {
  const T* x;
  const T* dy;
  const float* mean;
  const float* invstd;
  struct Channel {
    const T* x;
    const T* dy;
    float mean;
    float invstd;
    __device__ float2 operator()(std::int64_t at) const {
      const float g = to_float(dy[at]);
      const float xhat = detail::normalized_input(to_float(x[at]), mean, invstd);
      return make_float2(g, detail::mul_rn(g, xhat));
    }
  };
  __device__ Channel channel(std::int64_t c) const { return {x, dy, mean[c], invstd[c]}; }
};

/// [begin, end) of slice `split` of `count` items cut into `splits` slices.
struct Slice {
  std::int64_t begin;
  std::int64_t end;
};
__device__ inline Slice slice_of(std::int64_t count, std::int64_t splits, std::int64_t split) {
  const std::int64_t chunk = (count + splits - 1) / splits;
  const std::int64_t begin = split * chunk;
  return {begin, begin + chunk < count ? begin + chunk : count};
}

/// NCHW partial sums: block (channel blockIdx.x, slice blockIdx.y of the channel's N * area
/// values); thread t takes values begin + t, begin + t + 256, ... (consecutive threads read
/// consecutive positions of a plane), the block's total by cub::BlockReduce.
template <class Terms>
__global__ void __launch_bounds__(kBlockThreads)
    nchw_partials_kernel(Terms terms, std::int64_t images, std::int64_t channels, std::int64_t area,
                         float2* partials) {
  using BlockReduce = cub::BlockReduce<float2, kBlockThreads>;
  __shared__ typename BlockReduce::TempStorage storage;
  const std::int64_t c = blockIdx.x;
  const Slice slice = slice_of(images * area, gridDim.y, blockIdx.y);
  const auto channel = terms.channel(c);
  float2 acc = make_float2(0.0f, 0.0f);
  std::int64_t j = slice.begin + threadIdx.x;
  std::int64_t image = j / area, s = j % area;
  const std::int64_t step_images = kBlockThreads / area, step_s = kBlockThreads % area;
  for (; j < slice.end; j += kBlockThreads) {
    acc = add_pair(acc, channel((image * channels + c) * area + s));
    image += step_images;
    s += step_s;
    if (s >= area) {
      s -= area;
      ++image;
    }
  }
  const float2 total = BlockReduce(storage).Reduce(acc, detail::PairSum{});
  if (threadIdx.x == 0) partials[blockIdx.y * channels + c] = total;
}

/// NHWC partial sums: block (32 channels from blockIdx.x * 32, slice blockIdx.y of the
/// N * H * W rows); thread (x, y) sums rows begin + y, begin + y + 8, ... of its channel, then
/// thread row 0 adds the 8 row sums in order.
template <class Terms>
__global__ void __launch_bounds__(kBlockThreads)
    nhwc_partials_kernel(Terms terms, std::int64_t rows, std::int64_t channels, float2* partials) {
  __shared__ float2 row_sums[kNhwcRows][kNhwcChannels];
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kNhwcChannels + threadIdx.x;
  const Slice slice = slice_of(rows, gridDim.y, blockIdx.y);
  float2 acc = make_float2(0.0f, 0.0f);
  if (c < channels) {
    const auto channel = terms.channel(c);
    for (std::int64_t m = slice.begin + threadIdx.y; m < slice.end; m += kNhwcRows)
      acc = add_pair(acc, channel(m * channels + c));
  }
  row_sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || c >= channels) return;
  float2 total = row_sums[0][threadIdx.x];
  for (int r = 1; r < kNhwcRows; ++r) total = add_pair(total, row_sums[r][threadIdx.x]);
  partials[blockIdx.y * channels + c] = total;
}

/// Second pass: block c adds channel c's `splits` partials (cub::BlockReduce) into
/// sums[c], sums[C + c], and into first[c], second[c] when those are non-null.
__global__ void __launch_bounds__(kBlockThreads)
    reduce_partials_kernel(const float2* partials, std::int64_t splits, std::int64_t channels,
                           float* sums, float* first, float* second) {
  using BlockReduce = cub::BlockReduce<float2, kBlockThreads>;
  __shared__ typename BlockReduce::TempStorage storage;
  const std::int64_t c = blockIdx.x;
  float2 acc = make_float2(0.0f, 0.0f);
  for (std::int64_t k = threadIdx.x; k < splits; k += kBlockThreads)
    acc = add_pair(acc, partials[k * channels + c]);
  const float2 total = BlockReduce(storage).Reduce(acc, detail::PairSum{});
  if (threadIdx.x != 0) return;
  sums[c] = total.x;
  sums[channels + c] = total.y;
  if (first != nullptr) first[c] = total.x;
  if (second != nullptr) second[c] = total.y;
}

__global__ void __launch_bounds__(kBlockThreads)
    statistics_kernel(std::int64_t channels, const float* sums, double count, float eps,
                      float* mean, float* invstd) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (c >= channels) return;
  const detail::ChannelStatistics s =
      detail::channel_statistics(sums[c], sums[channels + c], count, eps);
  mean[c] = s.mean;
  invstd[c] = s.invstd;
}

/// The backward's per-channel constants as three [C] arrays: k, mean_dy, slope.
__global__ void __launch_bounds__(kBlockThreads)
    coefficients_kernel(std::int64_t channels, const float* gamma, const float* invstd,
                        const float* sums, double count, float* coefficients) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (c >= channels) return;
  const detail::BackwardCoefficients k =
      detail::backward_coefficients(gamma[c], invstd[c], sums[c], sums[channels + c], count);
  coefficients[c] = k.k;
  coefficients[channels + c] = k.mean_dy;
  coefficients[2 * channels + c] = k.slope;
}

/// Element i's channel for the element-wise kernels: [outer, channels, inner] indexing.
template <class Index>
struct ChannelIndex {
  Index elements;
  Index channels;
  Index inner;  ///< H * W for NCHW, 1 for NHWC
};

template <class Index>
__device__ inline Index element_index() {
  return static_cast<Index>(blockIdx.x) * kBlockThreads + threadIdx.x;
}

template <class T, class Index>
__global__ void __launch_bounds__(kBlockThreads)
    normalize_kernel(ChannelIndex<Index> ix, const T* x, const float* gamma, const float* beta,
                     const float* mean, const float* invstd, T* y) {
  const Index i = element_index<Index>();
  if (i >= ix.elements) return;
  const Index c = detail::channel_of(i, ix.channels, ix.inner);
  const float scale = detail::channel_scale(gamma[c], invstd[c]);
  y[i] = from_float<T>(detail::normalize(to_float(x[i]), mean[c], scale, beta[c]));
}

template <class T, class Index>
__global__ void __launch_bounds__(kBlockThreads)
    input_gradient_kernel(ChannelIndex<Index> ix, const T* x, const T* dy, const float* mean,
                          const float* coefficients, T* dx) {
  const Index i = element_index<Index>();
  if (i >= ix.elements) return;
  const Index c = detail::channel_of(i, ix.channels, ix.inner);
  const detail::BackwardCoefficients k{coefficients[c], coefficients[ix.channels + c],
                                       coefficients[2 * ix.channels + c]};
  dx[i] = from_float<T>(detail::input_gradient(to_float(x[i]), to_float(dy[i]), mean[c], k));
}

constexpr const char* kWorkspace = "batch_norm_workspace_bytes";
constexpr const char* kForwardSums = "batch_norm_forward_sums";
constexpr const char* kStatistics = "batch_norm_statistics";
constexpr const char* kNormalize = "batch_norm_forward_normalize";
constexpr const char* kBackwardSums = "batch_norm_backward_sums";
constexpr const char* kBackwardDx = "batch_norm_backward_dx";

void check_shape(const char* kernel, const ActivationShape& shape) {
  detail::require_positive(kernel, "N", shape.n);
  detail::require_positive(kernel, "C", shape.c);
  detail::require_positive(kernel, "H", shape.h);
  detail::require_positive(kernel, "W", shape.w);
  detail::require_at_most(kernel, "C", shape.c, detail::kMaxGridX);
}

/// Slices each channel's reduction is split over (grid.y of the first pass).
std::int64_t splits_of(const ActivationShape& shape) {
  const std::int64_t per_channel = shape.n * shape.area();
  return shape.layout == ActivationLayout::nchw
             ? detail::reduction_splits(per_channel, detail::kNchwElementsPerSplit)
             : detail::reduction_splits(per_channel, detail::kNhwcRowsPerSplit);
}

std::size_t workspace_bytes_of(const ActivationShape& shape) {
  const auto channels = static_cast<std::size_t>(shape.c);
  return std::max(static_cast<std::size_t>(splits_of(shape)) * channels * sizeof(float2),
                  3 * channels * sizeof(float));
}

void check_workspace(const char* kernel, const ActivationShape& shape, const void* workspace,
                     std::size_t workspace_bytes) {
  detail::require_workspace(kernel, workspace, workspace_bytes, workspace_bytes_of(shape),
                            alignof(float2));
}

void check_count(const char* kernel, std::int64_t count) {
  if (count < 1)
    throw std::domain_error(std::string(kernel) + ": count is " + std::to_string(count) +
                            ", the batch has no elements (expected N*H*W summed over the "
                            "group >= 1)");
}

/// Both passes of a per-channel reduction of `terms` into sums (and first/second, may be null).
template <class Terms>
void reduce_channels(cudaStream_t stream, const char* kernel, const ActivationShape& shape,
                     const Terms& terms, void* workspace, float* sums, float* first,
                     float* second) {
  auto* partials = static_cast<float2*>(workspace);
  const std::int64_t splits = splits_of(shape);
  const std::int64_t rows = shape.n * shape.area();
  if (shape.layout == ActivationLayout::nchw) {
    const dim3 blocks(static_cast<unsigned>(shape.c), static_cast<unsigned>(splits));
    nchw_partials_kernel<<<blocks, kBlockThreads, 0, stream>>>(terms, shape.n, shape.c,
                                                               shape.area(), partials);
  } else {
    const dim3 blocks(detail::grid_x_blocks(kernel, shape.c, kNhwcChannels),
                      static_cast<unsigned>(splits));
    nhwc_partials_kernel<<<blocks, dim3(kNhwcChannels, kNhwcRows), 0, stream>>>(terms, rows,
                                                                                shape.c, partials);
  }
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
  reduce_partials_kernel<<<static_cast<unsigned>(shape.c), kBlockThreads, 0, stream>>>(
      partials, splits, shape.c, sums, first, second);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

/// Calls f(ChannelIndex<Index>) with 32-bit indices when the tensor allows, 64-bit otherwise.
template <class F>
void dispatch_channel_index(const ActivationShape& shape, F&& f) {
  const std::int64_t inner = shape.layout == ActivationLayout::nchw ? shape.area() : 1;
  if (shape.elements() <= std::numeric_limits<std::uint32_t>::max()) {
    f(ChannelIndex<std::uint32_t>{static_cast<std::uint32_t>(shape.elements()),
                                  static_cast<std::uint32_t>(shape.c),
                                  static_cast<std::uint32_t>(inner)});
  } else {
    f(ChannelIndex<std::uint64_t>{static_cast<std::uint64_t>(shape.elements()),
                                  static_cast<std::uint64_t>(shape.c),
                                  static_cast<std::uint64_t>(inner)});
  }
}

}  // namespace

std::size_t batch_norm_workspace_bytes(const ActivationShape& shape) {
  check_shape(kWorkspace, shape);
  return workspace_bytes_of(shape);
}

void batch_norm_forward_sums(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                             const void* x, void* workspace, std::size_t workspace_bytes,
                             float* sums) {
  check_shape(kForwardSums, shape);
  detail::require_pointers(kForwardSums, 1, {{"x", x}, {"sums", sums}});
  check_workspace(kForwardSums, shape, workspace, workspace_bytes);
  detail::dispatch_activation(dtype, kForwardSums, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_channels(stream, kForwardSums, shape, MomentTerms<T>{static_cast<const T*>(x)},
                    workspace, sums, nullptr, nullptr);
  });
}

void batch_norm_statistics(cudaStream_t stream, std::int64_t channels, const float* sums,
                           std::int64_t count, float eps, float* mean, float* invstd) {
  detail::require_positive(kStatistics, "channels", channels);
  if (!(eps > 0.0f))
    throw std::invalid_argument(std::string(kStatistics) + ": eps is " + std::to_string(eps) +
                                ", expected > 0");
  check_count(kStatistics, count);
  detail::require_pointers(kStatistics, 1, {{"sums", sums}, {"mean", mean}, {"invstd", invstd}});
  statistics_kernel<<<detail::grid_x_blocks(kStatistics, channels, kBlockThreads), kBlockThreads, 0,
                      stream>>>(channels, sums, static_cast<double>(count), eps, mean, invstd);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

void batch_norm_forward_normalize(cudaStream_t stream, const ActivationShape& shape,
                                  core::DType dtype, const void* x, const float* gamma,
                                  const float* beta, const float* mean, const float* invstd,
                                  void* y) {
  check_shape(kNormalize, shape);
  detail::require_pointers(
      kNormalize, 1,
      {{"x", x}, {"gamma", gamma}, {"beta", beta}, {"mean", mean}, {"invstd", invstd}, {"y", y}});
  const unsigned blocks = detail::grid_x_blocks(kNormalize, shape.elements(), kBlockThreads);
  detail::dispatch_activation(dtype, kNormalize, "x and y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_channel_index(shape, [&](auto ix) {
      normalize_kernel<<<blocks, kBlockThreads, 0, stream>>>(
          ix, static_cast<const T*>(x), gamma, beta, mean, invstd, static_cast<T*>(y));
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

void batch_norm_backward_sums(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                              const void* x, const void* dy, const float* mean, const float* invstd,
                              void* workspace, std::size_t workspace_bytes, float* sums,
                              float* dgamma, float* dbeta) {
  check_shape(kBackwardSums, shape);
  detail::require_pointers(kBackwardSums, 1,
                           {{"x", x},
                            {"dy", dy},
                            {"mean", mean},
                            {"invstd", invstd},
                            {"sums", sums},
                            {"dgamma", dgamma},
                            {"dbeta", dbeta}});
  check_workspace(kBackwardSums, shape, workspace, workspace_bytes);
  detail::dispatch_activation(dtype, kBackwardSums, "x and dy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const GradientTerms<T> terms{static_cast<const T*>(x), static_cast<const T*>(dy), mean, invstd};
    reduce_channels(stream, kBackwardSums, shape, terms, workspace, sums, dbeta, dgamma);
  });
}

void batch_norm_backward_dx(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                            const void* x, const void* dy, const float* gamma, const float* mean,
                            const float* invstd, const float* sums, std::int64_t count,
                            void* workspace, std::size_t workspace_bytes, void* dx) {
  check_shape(kBackwardDx, shape);
  check_count(kBackwardDx, count);
  detail::require_pointers(kBackwardDx, 1,
                           {{"x", x},
                            {"dy", dy},
                            {"gamma", gamma},
                            {"mean", mean},
                            {"invstd", invstd},
                            {"sums", sums},
                            {"dx", dx}});
  check_workspace(kBackwardDx, shape, workspace, workspace_bytes);
  auto* coefficients = static_cast<float*>(workspace);
  coefficients_kernel<<<detail::grid_x_blocks(kBackwardDx, shape.c, kBlockThreads), kBlockThreads,
                        0, stream>>>(shape.c, gamma, invstd, sums, static_cast<double>(count),
                                     coefficients);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
  const unsigned blocks = detail::grid_x_blocks(kBackwardDx, shape.elements(), kBlockThreads);
  detail::dispatch_activation(dtype, kBackwardDx, "x, dy and dx", [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_channel_index(shape, [&](auto ix) {
      input_gradient_kernel<<<blocks, kBlockThreads, 0, stream>>>(
          ix, static_cast<const T*>(x), static_cast<const T*>(dy), mean, coefficients,
          static_cast<T*>(dx));
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

}  // namespace scaletune::kernels::cuda
