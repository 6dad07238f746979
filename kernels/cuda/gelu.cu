#include "gelu.hpp"

#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/gelu_math.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

template <class T>
struct GeluForward {
  const T* x;
  T* y;
  __device__ void operator()(std::int64_t i) const { y[i] = detail::gelu_element(x[i]); }
};

template <class T>
struct GeluBackward {
  const T* x;
  const T* dy;
  T* dx;
  __device__ void operator()(std::int64_t i) const {
    dx[i] = detail::gelu_grad_element(x[i], dy[i]);
  }
};

}  // namespace

void gelu_forward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                  void* y) {
  constexpr const char* kOp = "gelu_forward";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"x", x}, {"y", y}});
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, count,
                           GeluForward<T>{static_cast<const T*>(x), static_cast<T*>(y)});
  });
}

void gelu_backward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                   const void* dy, void* dx) {
  constexpr const char* kOp = "gelu_backward";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"x", x}, {"dy", dy}, {"dx", dx}});
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(
        stream, count,
        GeluBackward<T>{static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx)});
  });
}

}  // namespace scaletune::kernels::cuda
