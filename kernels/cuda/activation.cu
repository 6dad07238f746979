#include "activation.hpp"

#include "kernels/cuda/detail/activation_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

template <class T>
struct ReluForward {
  const T* x;
  T* y;
  __device__ void operator()(std::int64_t i) const { y[i] = detail::relu_element(x[i]); }
};

template <class T>
struct ReluBackward {
  const T* y;
  const T* dy;
  T* dx;
  __device__ void operator()(std::int64_t i) const {
    dx[i] = detail::relu_grad_element(y[i], dy[i]);
  }
};

}  // namespace

void relu_forward(cudaStream_t stream, core::DType type, std::int64_t count, const void* x,
                  void* y) {
  constexpr const char* kOp = "relu_forward";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"x", x}, {"y", y}});
  detail::dispatch_activation(type, kOp, "x", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, count,
                           ReluForward<T>{static_cast<const T*>(x), static_cast<T*>(y)});
  });
}

void relu_backward(cudaStream_t stream, core::DType type, std::int64_t count, const void* y,
                   const void* dy, void* dx) {
  constexpr const char* kOp = "relu_backward";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"y", y}, {"dy", dy}, {"dx", dx}});
  detail::dispatch_activation(type, kOp, "y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(
        stream, count,
        ReluBackward<T>{static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx)});
  });
}

}  // namespace scaletune::kernels::cuda
