#include "dropout.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/dropout_math.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// out[i] = in[i] * keep / (1 - p): forward and backward are this same map.
template <class T>
struct ApplyMask {
  std::uint64_t stream;
  std::uint64_t first_element;
  std::uint64_t threshold;
  float scale;
  const T* in;
  T* out;
  __device__ void operator()(std::int64_t i) const {
    const bool keep =
        detail::dropout_keep(stream, first_element + static_cast<std::uint64_t>(i), threshold);
    out[i] = detail::dropout_element(in[i], keep, scale);
  }
};

/// Checks the arguments (as the host dropout ops) and queues the masked copy.
/// in_name and out_name are the pointers' names in messages.
void apply_mask(const char* op, const char* in_name, const char* out_name, cudaStream_t stream,
                core::DType type, std::int64_t rows, std::int64_t cols, const ops::DropoutMask& draw,
                const void* in, void* out) {
  const std::int64_t elements = detail::checked_elements(op, rows, cols);
  detail::require_pointers(op, elements, {{in_name, in}, {out_name, out}});
  if (!(draw.p >= 0.0f && draw.p < 1.0f))
    throw std::invalid_argument(std::string(op) + ": p is " + std::to_string(draw.p) +
                                ", expected in [0, 1)");
  if (draw.first_row < 0)
    throw std::invalid_argument(std::string(op) + ": first_row is " +
                                std::to_string(draw.first_row) + ", expected >= 0");
  detail::dispatch_activation(type, op, in_name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const ApplyMask<T> mask{
        detail::dropout_stream(draw.seed, draw.step),
        static_cast<std::uint64_t>(draw.first_row) * static_cast<std::uint64_t>(cols),
        detail::dropout_keep_threshold(draw.p),
        1.0f / (1.0f - draw.p),
        static_cast<const T*>(in),
        static_cast<T*>(out)};
    detail::for_each_index(stream, elements, mask);
  });
}

}  // namespace

void dropout_forward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                     const ops::DropoutMask& draw, const void* x, void* y) {
  apply_mask("dropout_forward", "x", "y", stream, type, rows, cols, draw, x, y);
}

void dropout_backward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                      const ops::DropoutMask& draw, const void* dy, void* dx) {
  apply_mask("dropout_backward", "dy", "dx", stream, type, rows, cols, draw, dy, dx);
}

}  // namespace scaletune::kernels::cuda
