#include "nonfinite.hpp"

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/nonfinite_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// Each thread tests its grid-stride share; a block with any non-finite element stores the flag
/// once (every such store writes the same 1, so their order does not matter).
template <class T>
__global__ void __launch_bounds__(detail::kElementwiseThreads)
    check_nonfinite_kernel(std::int64_t count, const T* data, int* found) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  int bad = 0;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    bad |= detail::is_finite_element(data[i]) ? 0 : 1;
  if (__syncthreads_or(bad) != 0 && threadIdx.x == 0) *found = 1;
}

}  // namespace

void check_nonfinite(cudaStream_t stream, core::DType type, std::int64_t count, const void* data,
                     int* found) {
  constexpr const char* kOp = "check_nonfinite";
  detail::require_size(kOp, "count", count);
  detail::require_pointers(kOp, count, {{"data", data}, {"found", found}});
  detail::dispatch_activation(type, kOp, "data", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (count == 0) return;
    check_nonfinite_kernel<<<detail::elementwise_blocks(count), detail::kElementwiseThreads, 0,
                             stream>>>(count, static_cast<const T*>(data), found);
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace scaletune::kernels::cuda
