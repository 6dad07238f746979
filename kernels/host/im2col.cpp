#include "kernels/host/im2col.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace scaletune::kernels {
namespace {

/// Output indices [begin, end) whose input index o * stride + offset lies in [0, in), clipped
/// to [0, out). offset = kernel tap - pad. Padding is handled by these ranges, so the copy
/// loops carry no per-element bounds test.
struct OutputRange {
  std::ptrdiff_t begin = 0;
  std::ptrdiff_t end = 0;
};

OutputRange valid_outputs(int offset, int stride, int in, int out) {
  const int begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int last = in - 1 - offset;  // largest admissible o * stride
  const int end = last < 0 ? 0 : std::min(out, last / stride + 1);
  return {std::min(begin, end), end};
}

/// One row (c, r, s) of the im2col matrix. Its entry (oh, ow) is col[row + oh*Wo + ow]; when
/// oh is in rows and ow in cols it pairs with image[origin + (oh*W + ow) * stride].
struct Tap {
  std::ptrdiff_t row = 0;
  std::ptrdiff_t origin = 0;  ///< c*H*W + (r - pad)*W + (s - pad); may be negative, so
                              ///< offsets are added to it before the image pointer
  OutputRange rows, cols;
};

/// Calls f(tap) for every row of the im2col matrix, in order.
template <class F>
void for_each_tap(const ConvGeometry& g, F&& f) {
  const int ho = g.out_h(), wo = g.out_w();
  Tap t;
  for (int c = 0; c < g.in_channels; ++c) {
    for (int r = 0; r < g.kernel; ++r) {
      t.rows = valid_outputs(r - g.pad, g.stride, g.in_h, ho);
      for (int s = 0; s < g.kernel; ++s, t.row += std::ptrdiff_t{ho} * wo) {
        t.cols = valid_outputs(s - g.pad, g.stride, g.in_w, wo);
        t.origin = (std::ptrdiff_t{c} * g.in_h + r - g.pad) * g.in_w + s - g.pad;
        f(t);
      }
    }
  }
}

/// Calls f(std::integral_constant<int, S>{}) with S = stride for the strides ResNet uses
/// (1, 2), so the compiler vectorises the strided loops, and S = 0 (read at run time) else.
template <class F>
void with_stride(int stride, F&& f) {
  if (stride == 1) {
    f(std::integral_constant<int, 1>{});
  } else if (stride == 2) {
    f(std::integral_constant<int, 2>{});
  } else {
    f(std::integral_constant<int, 0>{});
  }
}

/// Stride 1 and Wo == W (then Ho == H too): a "same" convolution such as 3x3 pad 1.
bool is_same_width(const ConvGeometry& g) {
  return g.stride == 1 && g.out_w() == g.in_w;
}

/// Zeroes the entries of a tap's row that fall into the padding: whole padding rows with one
/// fill each, padding columns column by column with strided stores (no call per output row,
/// which dominates on small images).
void zero_padding(const Tap& t, std::ptrdiff_t ho, std::ptrdiff_t wo, float* out) {
  std::fill(out, out + t.rows.begin * wo, 0.0f);
  std::fill(out + t.rows.end * wo, out + ho * wo, 0.0f);
  const auto zero_column = [&](std::ptrdiff_t ow) {
    for (std::ptrdiff_t oh = t.rows.begin; oh < t.rows.end; ++oh) out[oh * wo + ow] = 0.0f;
  };
  for (std::ptrdiff_t ow = 0; ow < t.cols.begin; ++ow) zero_column(ow);
  for (std::ptrdiff_t ow = t.cols.end; ow < wo; ++ow) zero_column(ow);
}

/// im2col one output row at a time: a strided copy of the in-bounds entries.
template <int kStride>
void im2col_rows(const ConvGeometry& g, const float* image, float* col) {
  const std::ptrdiff_t ho = g.out_h(), wo = g.out_w(), w = g.in_w;
  const std::ptrdiff_t stride = kStride > 0 ? kStride : g.stride;
  for_each_tap(g, [&](const Tap& t) {
    float* const out = col + t.row;
    for (std::ptrdiff_t oh = t.rows.begin; oh < t.rows.end; ++oh) {
      float* const dst = out + oh * wo + t.cols.begin;
      const float* const src = image + (t.origin + (oh * w + t.cols.begin) * stride);
      for (std::ptrdiff_t i = 0; i < t.cols.end - t.cols.begin; ++i) dst[i] = src[i * stride];
    }
    zero_padding(t, ho, wo, out);
  });
}

/// im2col for a "same" convolution (is_same_width): entry j of a row then pairs with
/// image[origin + j], so the in-bounds entries are one contiguous copy; the padding entries
/// inside it (between two output rows) are zeroed afterwards with the rest.
void im2col_same_width(const ConvGeometry& g, const float* image, float* col) {
  const std::ptrdiff_t ho = g.out_h(), wo = g.out_w();
  for_each_tap(g, [&](const Tap& t) {
    float* const out = col + t.row;
    if (t.rows.begin < t.rows.end && t.cols.begin < t.cols.end) {
      const std::ptrdiff_t first = t.rows.begin * wo + t.cols.begin;
      const std::ptrdiff_t last = (t.rows.end - 1) * wo + t.cols.end;
      std::copy(image + (t.origin + first), image + (t.origin + last), out + first);
    }
    zero_padding(t, ho, wo, out);
  });
}

/// col2im one output row at a time: a strided accumulation of the in-bounds entries.
template <int kStride>
void col2im_rows(const ConvGeometry& g, const float* col, float* image) {
  const std::ptrdiff_t wo = g.out_w(), w = g.in_w;
  const std::ptrdiff_t stride = kStride > 0 ? kStride : g.stride;
  for_each_tap(g, [&](const Tap& t) {
    for (std::ptrdiff_t oh = t.rows.begin; oh < t.rows.end; ++oh) {
      const float* const src = col + t.row + oh * wo + t.cols.begin;
      float* const dst = image + (t.origin + (oh * w + t.cols.begin) * stride);
      for (std::ptrdiff_t i = 0; i < t.cols.end - t.cols.begin; ++i) dst[i * stride] += src[i];
    }
  });
}

/// col2im for a "same" convolution: as im2col_same_width, one contiguous accumulation per
/// tap, after zeroing the padding entries of col so that they add nothing.
void col2im_same_width(const ConvGeometry& g, float* col, float* image) {
  const std::ptrdiff_t ho = g.out_h(), wo = g.out_w();
  for_each_tap(g, [&](const Tap& t) {
    if (t.rows.begin == t.rows.end || t.cols.begin == t.cols.end) return;
    float* const src = col + t.row;
    zero_padding(t, ho, wo, src);
    const std::ptrdiff_t first = t.rows.begin * wo + t.cols.begin;
    const std::ptrdiff_t last = (t.rows.end - 1) * wo + t.cols.end;
    float* const dst = image + (t.origin + first);
    for (std::ptrdiff_t j = 0; j < last - first; ++j) dst[j] += src[first + j];
  });
}

}  // namespace

void im2col(const ConvGeometry& g, const float* image, float* col) {
  if (is_same_width(g)) {
    im2col_same_width(g, image, col);
    return;
  }
  with_stride(g.stride, [&](auto stride) { im2col_rows<decltype(stride)::value>(g, image, col); });
}

void col2im(const ConvGeometry& g, float* col, float* image) {
  std::fill_n(image, static_cast<std::size_t>(g.in_channels) * g.in_h * g.in_w, 0.0f);
  if (is_same_width(g)) {
    col2im_same_width(g, col, image);
    return;
  }
  with_stride(g.stride, [&](auto stride) { col2im_rows<decltype(stride)::value>(g, col, image); });
}

}  // namespace scaletune::kernels
