#include "bias.hpp"

#include <algorithm>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/activation_math.hpp"
#include "kernels/cuda/detail/column_sums.cuh"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxRowBlocks = 65535;  // gridDim.y limit

/// Block (x, y) adds the bias to columns [x * 256, x * 256 + 256) of rows y, y + gridDim.y, ...
template <class T>
__global__ void __launch_bounds__(kThreads)
    bias_add_kernel(std::int64_t rows, std::int64_t cols, const float* bias, T* y) {
  const std::int64_t c = std::int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (c >= cols) return;
  const float b = bias[c];
  for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    T& out = y[r * cols + c];
    out = detail::bias_add_element(out, b);
  }
}

/// Row r's contribution to db at column c: dy[r, c].
template <class T>
struct BiasGradContrib {
  const T* dy;
  std::int64_t cols;
  __device__ void operator()(std::int64_t r, std::int64_t c, float (&sums)[1]) const {
    sums[0] += detail::to_float(dy[r * cols + c]);
  }
};

}  // namespace

void bias_add(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
              const float* bias, void* y) {
  constexpr const char* kOp = "bias_add";
  const std::int64_t elements = detail::checked_elements(kOp, rows, cols);
  detail::require_pointers(kOp, elements, {{"bias", bias}, {"y", y}});
  detail::dispatch_activation(type, kOp, "y", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (elements == 0) return;
    const dim3 grid(static_cast<unsigned>((cols + kThreads - 1) / kThreads),
                    static_cast<unsigned>(std::min(rows, kMaxRowBlocks)));
    bias_add_kernel<<<grid, kThreads, 0, stream>>>(rows, cols, bias, static_cast<T*>(y));
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
  });
}

void bias_grad(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
               const void* dy, float* db, bool accumulate) {
  constexpr const char* kOp = "bias_grad";
  const std::int64_t elements = detail::checked_elements(kOp, rows, cols);
  detail::require_pointers(kOp, elements, {{"dy", dy}});
  detail::require_pointers(kOp, cols, {{"db", db}});
  detail::dispatch_activation(type, kOp, "dy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::column_sums<1>(stream, rows, cols, BiasGradContrib<T>{static_cast<const T*>(dy), cols},
                           detail::ColumnOutputs<1>{{db}, accumulate});
  });
}

}  // namespace scaletune::kernels::cuda
