#include "kernels/cuda/interaction.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/interaction_math.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

using detail::from_float;
using detail::kBlockThreads;
using detail::to_float;

/// Sources one gather launch sums (passed by value in the kernel's parameters).
constexpr int kSourcesPerLaunch = 32;

/// Sizes every interaction kernel shares.
struct InteractionShape {
  std::int64_t batch;
  std::int64_t features;
  std::int64_t dim;
  __host__ __device__ std::int64_t width() const {
    return detail::interaction_width(features, dim);
  }
};

/// One block per sample, threads over the output columns.
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    forward_output_kernel(InteractionShape s, const T* z, const float* gram, T* out) {
  const std::int64_t n = blockIdx.x;
  const std::int64_t width = s.width();
  for (std::int64_t col = threadIdx.x; col < width; col += kBlockThreads) {
    if (col < s.dim) {
      out[n * width + col] = z[n * s.features * s.dim + col];
    } else {
      const detail::FeaturePair pair = detail::pair_at(col - s.dim);
      const float dot = gram[(n * s.features + pair.i) * s.features + pair.j];
      out[n * width + col] = from_float<T>(dot);
    }
  }
}

/// One thread per element of grad_gram [batch, F, F].
template <class D, class G>
__global__ void __launch_bounds__(kBlockThreads)
    backward_gram_kernel(InteractionShape s, const D* dout, G* grad_gram) {
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const std::int64_t square = s.features * s.features;
  if (at >= s.batch * square) return;
  const std::int64_t n = at / square, i = at % square / s.features, j = at % s.features;
  const D* row = dout + n * s.width();
  const auto dout_at = [row](std::int64_t c) { return to_float(row[c]); };
  grad_gram[at] = from_float<G>(detail::gram_gradient(dout_at, s.dim, i, j));
}

/// One thread per element of dz[:, 0, :].
template <class D, class Z>
__global__ void __launch_bounds__(kBlockThreads)
    add_bottom_kernel(InteractionShape s, const D* dout, Z* dz) {
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (at >= s.batch * s.dim) return;
  const std::int64_t n = at / s.dim, d = at % s.dim;
  Z& target = dz[n * s.features * s.dim + d];
  const float sum = detail::add_rn(to_float(target), to_float(dout[n * s.width() + d]));
  target = from_float<Z>(sum);
}

/// Where a [batch, cols] block sits in z: z[:, feature, col_begin .. col_begin + cols).
struct FeatureSlice {
  std::int64_t feature;
  std::int64_t col_begin;
  std::int64_t cols;
};

/// Up to kSourcesPerLaunch source blocks of one gather launch.
template <class S>
struct GatherSources {
  const S* blocks[kSourcesPerLaunch];
  int count;
  bool add_to_z;  ///< start from the value in z (a later launch of a long source list)
};

/// One thread per element of the slice.
template <class S, class Z>
__global__ void __launch_bounds__(kBlockThreads)
    gather_kernel(InteractionShape s, FeatureSlice slice, GatherSources<S> sources, Z* z) {
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (at >= s.batch * slice.cols) return;
  const std::int64_t n = at / slice.cols, c = at % slice.cols;
  Z& target = z[(n * s.features + slice.feature) * s.dim + slice.col_begin + c];
  float sum = sources.add_to_z ? to_float(target) : 0.0f;
  for (int k = 0; k < sources.count; ++k)
    sum = detail::add_rn(sum, to_float(sources.blocks[k][at]));
  target = from_float<Z>(sum);
}

/// One thread per element of dst.
template <class Z, class D>
__global__ void __launch_bounds__(kBlockThreads)
    slice_kernel(InteractionShape s, FeatureSlice slice, const Z* z, D* dst) {
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (at >= s.batch * slice.cols) return;
  const std::int64_t n = at / slice.cols, c = at % slice.cols;
  const Z value = z[(n * s.features + slice.feature) * s.dim + slice.col_begin + c];
  dst[at] = from_float<D>(to_float(value));
}

InteractionShape checked_shape(const char* kernel, std::int64_t batch, std::int64_t features,
                               std::int64_t dim) {
  detail::require_positive(kernel, "batch", batch);
  detail::require_positive(kernel, "features", features);
  detail::require_positive(kernel, "dim", dim);
  return {batch, features, dim};
}

FeatureSlice checked_slice(const char* kernel, const InteractionShape& s, std::int64_t feature,
                           std::int64_t col_begin, std::int64_t cols) {
  if (feature < 0 || feature >= s.features)
    throw std::invalid_argument(std::string(kernel) + ": feature is " + std::to_string(feature) +
                                ", expected in [0, " + std::to_string(s.features) + ")");
  detail::require_size(kernel, "col_begin", col_begin);
  detail::require_positive(kernel, "cols", cols);
  detail::require_at_most(kernel, "col_begin + cols", col_begin + cols, s.dim);
  return {feature, col_begin, cols};
}

/// Blocks of kBlockThreads threads covering `elements` threads.
unsigned element_blocks(const char* kernel, std::int64_t elements) {
  return detail::grid_x_blocks(kernel, elements, kBlockThreads);
}

constexpr const char* kForwardOutput = "interaction_forward_output";
constexpr const char* kBackwardGram = "interaction_backward_gram";
constexpr const char* kAddBottom = "interaction_backward_add_bottom";
constexpr const char* kGather = "interaction_gather_feature";
constexpr const char* kSlice = "interaction_slice_feature";

}  // namespace

void interaction_forward_output(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                std::int64_t dim, core::DType dtype, const void* z,
                                const float* gram, void* out) {
  const InteractionShape s = checked_shape(kForwardOutput, batch, features, dim);
  detail::require_pointers(kForwardOutput, 1, {{"z", z}, {"gram", gram}, {"out", out}});
  detail::dispatch_activation(dtype, kForwardOutput, "z and out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_output_kernel<T>
        <<<detail::grid_x_blocks(kForwardOutput, batch, 1), kBlockThreads, 0, stream>>>(
            s, static_cast<const T*>(z), gram, static_cast<T*>(out));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

void interaction_backward_gram(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                               std::int64_t dim, core::DType dout_dtype, const void* dout,
                               core::DType grad_gram_dtype, void* grad_gram) {
  const InteractionShape s = checked_shape(kBackwardGram, batch, features, dim);
  detail::require_pointers(kBackwardGram, 1, {{"dout", dout}, {"grad_gram", grad_gram}});
  detail::dispatch_activation(dout_dtype, kBackwardGram, "dout", [&](auto dout_tag) {
    using D = typename decltype(dout_tag)::type;
    detail::dispatch_activation(grad_gram_dtype, kBackwardGram, "grad_gram", [&](auto gram_tag) {
      using G = typename decltype(gram_tag)::type;
      backward_gram_kernel<D, G>
          <<<element_blocks(kBackwardGram, batch * features * features), kBlockThreads, 0,
             stream>>>(s, static_cast<const D*>(dout), static_cast<G*>(grad_gram));
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

void interaction_backward_add_bottom(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                     std::int64_t dim, core::DType dout_dtype, const void* dout,
                                     core::DType dz_dtype, void* dz) {
  const InteractionShape s = checked_shape(kAddBottom, batch, features, dim);
  detail::require_pointers(kAddBottom, 1, {{"dout", dout}, {"dz", dz}});
  detail::dispatch_activation(dout_dtype, kAddBottom, "dout", [&](auto dout_tag) {
    using D = typename decltype(dout_tag)::type;
    detail::dispatch_activation(dz_dtype, kAddBottom, "dz", [&](auto dz_tag) {
      using Z = typename decltype(dz_tag)::type;
      add_bottom_kernel<D, Z>
          <<<element_blocks(kAddBottom, batch * dim), kBlockThreads, 0, stream>>>(
              s, static_cast<const D*>(dout), static_cast<Z*>(dz));
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

void interaction_gather_feature(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                                std::int64_t dim, std::int64_t feature, std::int64_t col_begin,
                                std::int64_t cols, core::DType src_dtype,
                                std::span<const void* const> sources, core::DType z_dtype,
                                void* z) {
  const InteractionShape s = checked_shape(kGather, batch, features, dim);
  const FeatureSlice slice = checked_slice(kGather, s, feature, col_begin, cols);
  if (sources.empty())
    throw std::invalid_argument(std::string(kGather) + ": sources is empty, expected >= 1");
  detail::require_pointers(kGather, 1, {{"z", z}});
  for (const void* source : sources) detail::require_pointers(kGather, 1, {{"a source", source}});
  detail::dispatch_activation(src_dtype, kGather, "sources", [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    detail::dispatch_activation(z_dtype, kGather, "z", [&](auto z_tag) {
      using Z = typename decltype(z_tag)::type;
      const unsigned blocks = element_blocks(kGather, batch * cols);
      for (std::size_t first = 0; first < sources.size(); first += kSourcesPerLaunch) {
        GatherSources<S> launch{};
        launch.count =
            static_cast<int>(std::min<std::size_t>(kSourcesPerLaunch, sources.size() - first));
        launch.add_to_z = first > 0;
        for (int k = 0; k < launch.count; ++k)
          launch.blocks[k] = static_cast<const S*>(sources[first + k]);
        gather_kernel<S, Z>
            <<<blocks, kBlockThreads, 0, stream>>>(s, slice, launch, static_cast<Z*>(z));
        SCALETUNE_CUDA_CHECK(cudaGetLastError());
      }
    });
  });
}

void interaction_slice_feature(cudaStream_t stream, std::int64_t batch, std::int64_t features,
                               std::int64_t dim, std::int64_t feature, std::int64_t col_begin,
                               std::int64_t cols, core::DType z_dtype, const void* z,
                               core::DType dst_dtype, void* dst) {
  const InteractionShape s = checked_shape(kSlice, batch, features, dim);
  const FeatureSlice slice = checked_slice(kSlice, s, feature, col_begin, cols);
  detail::require_pointers(kSlice, 1, {{"z", z}, {"dst", dst}});
  detail::dispatch_activation(z_dtype, kSlice, "z", [&](auto z_tag) {
    using Z = typename decltype(z_tag)::type;
    detail::dispatch_activation(dst_dtype, kSlice, "dst", [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      slice_kernel<Z, D><<<element_blocks(kSlice, batch * cols), kBlockThreads, 0, stream>>>(
          s, slice, static_cast<const Z*>(z), static_cast<D*>(dst));
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

}  // namespace scaletune::kernels::cuda
