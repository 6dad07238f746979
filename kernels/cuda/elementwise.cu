#include "elementwise.hpp"

#include "kernels/cuda/detail/activation_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

template <class T>
struct AddInplace {
  const T* x;
  T* y;
  __device__ void operator()(std::int64_t i) const { y[i] = detail::add_element(y[i], x[i]); }
};

template <class T>
struct Scale {
  float alpha;
  const T* x;
  T* y;
  __device__ void operator()(std::int64_t i) const { y[i] = detail::scale_element(alpha, x[i]); }
};

template <class T>
struct Fill {
  T value;
  T* y;
  __device__ void operator()(std::int64_t i) const { y[i] = value; }
};

}  // namespace

void add_inplace(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                 void* y) {
  constexpr const char* kOp = "add_inplace";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"x", x}, {"y", y}});
  detail::dispatch_activation(type, kOp, "y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, count,
                           AddInplace<T>{static_cast<const T*>(x), static_cast<T*>(y)});
  });
}

void scale(cudaStream_t stream, core::DType type, std::int64_t count, float alpha, const void* x,
           void* y) {
  constexpr const char* kOp = "scale";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"x", x}, {"y", y}});
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, count,
                           Scale<T>{alpha, static_cast<const T*>(x), static_cast<T*>(y)});
  });
}

void fill(cudaStream_t stream, core::DType type, std::int64_t count, float value, void* y) {
  constexpr const char* kOp = "fill";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"y", y}});
  detail::dispatch_activation(type, kOp, "y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, count,
                           Fill<T>{detail::from_float<T>(value), static_cast<T*>(y)});
  });
}

}  // namespace scaletune::kernels::cuda
