#include "pooling.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kForward = "MaxPool2d::forward";
constexpr const char* kBackward = "MaxPool2d::backward";

void require_at_least(const char* what, const char* name, int value, int minimum) {
  if (value < minimum)
    throw std::invalid_argument(std::string(what) + ": " + name + " is " + std::to_string(value) +
                                ", expected >= " + std::to_string(minimum));
}

}  // namespace

MaxPool2d::MaxPool2d(int kernel, int stride, int pad)
    : m_kernel(kernel), m_stride(stride), m_pad(pad) {
  require_at_least("MaxPool2d", "kernel", kernel, 1);
  require_at_least("MaxPool2d", "stride", stride, 1);
  require_at_least("MaxPool2d", "pad", pad, 0);
  if (pad > kernel / 2)
    throw std::invalid_argument("MaxPool2d: pad is " + std::to_string(pad) +
                                ", expected <= kernel/2 = " + std::to_string(kernel / 2));
}

int MaxPool2d::out_size(int in, int kernel, int stride, int pad) {
  require_at_least("MaxPool2d::out_size", "in", in, 1);
  require_at_least("MaxPool2d::out_size", "kernel", kernel, 1);
  require_at_least("MaxPool2d::out_size", "stride", stride, 1);
  require_at_least("MaxPool2d::out_size", "pad", pad, 0);
  require_at_least("MaxPool2d::out_size", "in + 2*pad", in + 2 * pad, kernel);
  return (in + 2 * pad - kernel) / stride + 1;
}

void MaxPool2d::forward(const Tensor4& x, const Tensor4& y) {
  const std::size_t n = x.extent(0);
  const std::size_t channels = x.extent(1);
  const int in_h = static_cast<int>(x.extent(2));
  const int in_w = static_cast<int>(x.extent(3));
  const int min_extent = std::max(m_kernel - 2 * m_pad, 1);
  if (in_h < min_extent || in_w < min_extent)
    throw std::invalid_argument(
        std::string(kForward) + ": x is " + detail::shape_string(x, 4) +
        ", expected H and W >= kernel - 2*pad = " + std::to_string(min_extent));
  if (x.extent(2) * x.extent(3) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument(std::string(kForward) + ": x is " + detail::shape_string(x, 4) +
                                ", expected H*W < 2^31");
  const int out_h = out_size(in_h, m_kernel, m_stride, m_pad);
  const int out_w = out_size(in_w, m_kernel, m_stride, m_pad);
  detail::require_shape(
      kForward, "y", y,
      {n, channels, static_cast<std::size_t>(out_h), static_cast<std::size_t>(out_w)});
  m_in_shape = {n, channels, x.extent(2), x.extent(3)};
  m_argmax.assign(y.size(), 0);

  std::int32_t* argmax = m_argmax.data();
  const int kernel = m_kernel;
  const int stride = m_stride;
  const int pad = m_pad;
  Kokkos::parallel_for("max_pool_forward", detail::host_range(n * channels), [=](std::size_t p) {
    const std::size_t b = p / channels;
    const std::size_t c = p % channels;
    std::int32_t* plane_argmax = argmax + p * out_h * out_w;
    for (int oh = 0; oh < out_h; ++oh) {
      const int h_begin = std::max(oh * stride - pad, 0);
      const int h_end = std::min(oh * stride - pad + kernel, in_h);
      for (int ow = 0; ow < out_w; ++ow) {
        const int w_begin = std::max(ow * stride - pad, 0);
        const int w_end = std::min(ow * stride - pad + kernel, in_w);
        // Padding is -inf, so only in-bounds elements compete; strict > keeps the first max.
        float best = x(b, c, h_begin, w_begin);
        std::int32_t best_at = h_begin * in_w + w_begin;
        for (int h = h_begin; h < h_end; ++h)
          for (int w = w_begin; w < w_end; ++w)
            if (x(b, c, h, w) > best) {
              best = x(b, c, h, w);
              best_at = h * in_w + w;
            }
        y(b, c, oh, ow) = best;
        plane_argmax[oh * out_w + ow] = best_at;
      }
    }
  });
}

void MaxPool2d::backward(const Tensor4& dy, const Tensor4& dx) {
  if (m_in_shape.empty()) throw std::logic_error(std::string(kBackward) + ": forward has not run");
  const std::size_t n = m_in_shape[0];
  const std::size_t channels = m_in_shape[1];
  const int in_h = static_cast<int>(m_in_shape[2]);
  const int in_w = static_cast<int>(m_in_shape[3]);
  const int out_h = out_size(in_h, m_kernel, m_stride, m_pad);
  const int out_w = out_size(in_w, m_kernel, m_stride, m_pad);
  detail::require_shape(
      kBackward, "dy", dy,
      {n, channels, static_cast<std::size_t>(out_h), static_cast<std::size_t>(out_w)});
  detail::require_shape(kBackward, "dx", dx, {n, channels, m_in_shape[2], m_in_shape[3]});

  const std::int32_t* argmax = m_argmax.data();
  Kokkos::parallel_for("max_pool_backward", detail::host_range(n * channels), [=](std::size_t p) {
    const std::size_t b = p / channels;
    const std::size_t c = p % channels;
    for (int h = 0; h < in_h; ++h)
      for (int w = 0; w < in_w; ++w) dx(b, c, h, w) = 0.0f;
    const std::int32_t* plane_argmax = argmax + p * out_h * out_w;
    for (int oh = 0; oh < out_h; ++oh)
      for (int ow = 0; ow < out_w; ++ow) {
        const std::int32_t at = plane_argmax[oh * out_w + ow];
        dx(b, c, at / in_w, at % in_w) += dy(b, c, oh, ow);
      }
  });
}

void global_avg_pool_forward(const Tensor4& x, const Tensor2& y) {
  const std::size_t n = x.extent(0);
  const std::size_t channels = x.extent(1);
  const std::size_t in_h = x.extent(2);
  const std::size_t in_w = x.extent(3);
  if (in_h * in_w == 0)
    throw std::invalid_argument("global_avg_pool_forward: x is " + detail::shape_string(x, 4) +
                                ", expected H*W >= 1");
  detail::require_shape("global_avg_pool_forward", "y", y, {n, channels});
  const double inv_area = 1.0 / static_cast<double>(in_h * in_w);
  Kokkos::parallel_for("global_avg_pool_forward", detail::host_range(n * channels),
                       [=](std::size_t p) {
                         const std::size_t b = p / channels;
                         const std::size_t c = p % channels;
                         double sum = 0.0;
                         for (std::size_t h = 0; h < in_h; ++h)
                           for (std::size_t w = 0; w < in_w; ++w) sum += x(b, c, h, w);
                         y(b, c) = static_cast<float>(sum * inv_area);
                       });
}

void global_avg_pool_backward(const Tensor2& dy, const Tensor4& dx) {
  const std::size_t n = dx.extent(0);
  const std::size_t channels = dx.extent(1);
  const std::size_t in_h = dx.extent(2);
  const std::size_t in_w = dx.extent(3);
  detail::require_shape("global_avg_pool_backward", "dy", dy, {n, channels});
  const float inv_area = 1.0f / static_cast<float>(in_h * in_w);
  Kokkos::parallel_for("global_avg_pool_backward", detail::host_range(n * channels),
                       [=](std::size_t p) {
                         const std::size_t b = p / channels;
                         const std::size_t c = p % channels;
                         const float g = dy(b, c) * inv_area;
                         for (std::size_t h = 0; h < in_h; ++h)
                           for (std::size_t w = 0; w < in_w; ++w) dx(b, c, h, w) = g;
                       });
}

}  // namespace scaletune::kernels
