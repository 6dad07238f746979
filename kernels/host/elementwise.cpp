#include "kernels/host/elementwise.hpp"

#include <Eigen/Core>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"

namespace scaletune::kernels {
namespace {

/// Calls f(T*) with the array as its element type (fp32, fp64, fp16 as Eigen::half, bf16 as
/// Eigen::bfloat16).
template <class F>
void with_float_type(void* data, core::DType type, F&& f) {
  switch (type) {
    case core::DType::fp32:
      return f(static_cast<float*>(data));
    case core::DType::fp64:
      return f(static_cast<double*>(data));
    case core::DType::fp16:
      return f(static_cast<Eigen::half*>(data));
    case core::DType::bf16:
      return f(static_cast<Eigen::bfloat16*>(data));
    case core::DType::int32:
      return f(static_cast<std::int32_t*>(data));
    case core::DType::int64:
      return f(static_cast<std::int64_t*>(data));
  }
}

bool is_integer(core::DType type) {
  return type == core::DType::int32 || type == core::DType::int64;
}

}  // namespace

void fill(void* x, core::DType type, std::size_t n, float value) {
  with_float_type(x, type, [&](auto* out) {
    using T = std::remove_pointer_t<decltype(out)>;
    const T v = static_cast<T>(value);
    Kokkos::parallel_for("fill", detail::host_range(n), [=](std::size_t i) { out[i] = v; });
  });
}

void convert_copy(const void* src, core::DType src_type, void* dst, core::DType dst_type,
                  std::size_t n) {
  if (src_type != dst_type && (is_integer(src_type) || is_integer(dst_type)))
    throw std::invalid_argument("convert_copy: cannot convert " +
                                std::string(core::dtype_key(src_type)) + " to " +
                                std::string(core::dtype_key(dst_type)));
  with_float_type(const_cast<void*>(src), src_type, [&](auto* in) {
    with_float_type(dst, dst_type, [&](auto* out) {
      using Out = std::remove_pointer_t<decltype(out)>;
      using In = std::remove_pointer_t<decltype(in)>;
      Kokkos::parallel_for("convert_copy", detail::host_range(n), [=](std::size_t i) {
        if constexpr (std::is_same_v<In, Out>)
          out[i] = in[i];
        else
          out[i] = static_cast<Out>(static_cast<float>(in[i]));
      });
    });
  });
}

void add_flat(const float* x, float* y, std::size_t n) {
  Kokkos::parallel_for("add_flat", detail::host_range(n), [=](std::size_t i) { y[i] += x[i]; });
}

void scale_flat(float* x, std::size_t n, float alpha) {
  Kokkos::parallel_for("scale_flat", detail::host_range(n), [=](std::size_t i) { x[i] *= alpha; });
}

void copy_columns(const float* src, std::size_t src_stride, std::size_t src_col, float* dst,
                  std::size_t dst_stride, std::size_t dst_col, std::size_t rows, std::size_t cols,
                  bool accumulate) {
  Kokkos::parallel_for("copy_columns", detail::host_range(rows), [=](std::size_t r) {
    const float* in = src + r * src_stride + src_col;
    float* out = dst + r * dst_stride + dst_col;
    if (accumulate)
      for (std::size_t c = 0; c < cols; ++c) out[c] += in[c];
    else
      for (std::size_t c = 0; c < cols; ++c) out[c] = in[c];
  });
}

bool any_nonfinite(const float* x, std::size_t n) {
  int found = 0;
  Kokkos::parallel_reduce(
      "any_nonfinite", detail::host_range(n),
      [=](std::size_t i, int& any) { any |= std::isfinite(x[i]) ? 0 : 1; },
      Kokkos::BOr<int>(found));
  return found != 0;
}

}  // namespace scaletune::kernels
