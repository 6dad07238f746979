#include "cast.hpp"

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

template <class Src, class Dst>
struct Cast {
  const Src* src;
  Dst* dst;
  __device__ void operator()(std::int64_t i) const { dst[i] = detail::cast_element<Dst>(src[i]); }
};

template <class Src>
struct AccumulateCast {
  const Src* src;
  float* dst;
  __device__ void operator()(std::int64_t i) const {
    dst[i] = detail::accumulate_cast_element(dst[i], src[i]);
  }
};

}  // namespace

void cast(cudaStream_t stream, std::int64_t count, core::DType src_type, const void* src,
          core::DType dst_type, void* dst) {
  constexpr const char* kOp = "cast";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"src", src}, {"dst", dst}});
  detail::dispatch_activation(src_type, kOp, "src", [&](auto src_tag) {
    using Src = typename decltype(src_tag)::type;
    detail::dispatch_activation(dst_type, kOp, "dst", [&](auto dst_tag) {
      using Dst = typename decltype(dst_tag)::type;
      detail::for_each_index(stream, count,
                             Cast<Src, Dst>{static_cast<const Src*>(src), static_cast<Dst*>(dst)});
    });
  });
}

void accumulate_cast(cudaStream_t stream, std::int64_t count, core::DType src_type, const void* src,
                     float* dst) {
  constexpr const char* kOp = "accumulate_cast";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"src", src}, {"dst", dst}});
  detail::dispatch_activation(src_type, kOp, "src", [&](auto tag) {
    using Src = typename decltype(tag)::type;
    detail::for_each_index(stream, count, AccumulateCast<Src>{static_cast<const Src*>(src), dst});
  });
}

}  // namespace scaletune::kernels::cuda
