#include "kernels/host/conv2d.hpp"

#include <initializer_list>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/gemm.hpp"
#include "kernels/host/im2col.hpp"

namespace scaletune::kernels {
namespace {

/// Throws std::invalid_argument unless t is a contiguous view of shape `expected`; tensor names
/// the view and its axes, e.g. "w [K, C, R, S]".
void require_tensor(const char* op, const char* tensor, const Tensor4& t,
                    std::initializer_list<std::size_t> expected) {
  detail::require_shape(op, tensor, t, expected);
  detail::require_contiguous(op, tensor, t);
}

/// A 1x1, stride-1, unpadded convolution: the input planes [C, H*W] are the im2col matrix.
bool is_pointwise(const ConvGeometry& g) {
  return g.kernel == 1 && g.stride == 1 && g.pad == 0;
}

/// The GEMM operand col[C*R*S, Ho*Wo] of one image: the image itself for a pointwise
/// convolution, else im2col(image) written to ws.
const float* lowered(const ConvGeometry& g, const float* image, float* ws) {
  if (is_pointwise(g)) return image;
  im2col(g, image, ws);
  return ws;
}

}  // namespace

Conv2d::Conv2d(ConvGeometry g) : m_geometry(g) {
  ops::validate(m_geometry);
}

std::size_t Conv2d::workspace_floats() const {
  return is_pointwise(m_geometry) ? 0 : m_geometry.col_rows() * m_geometry.col_cols();
}

int Conv2d::check_common(const char* op, const Tensor4& x, const Tensor4& w, const char* y_name,
                         const Tensor4& y_or_dy, const Vector& ws) const {
  const ConvGeometry& g = m_geometry;
  const std::size_t batch = x.extent(0);
  if (batch < 1) {
    throw std::invalid_argument(std::string(op) + ": x has batch 0, expected >= 1");
  }
  const auto k = static_cast<std::size_t>(g.out_channels);
  const auto c = static_cast<std::size_t>(g.in_channels);
  const auto r = static_cast<std::size_t>(g.kernel);
  require_tensor(op, "x [N, C, H, W]", x, {batch, c, std::size_t(g.in_h), std::size_t(g.in_w)});
  require_tensor(op, "w [K, C, R, S]", w, {k, c, r, r});
  require_tensor(op, y_name, y_or_dy, {batch, k, std::size_t(g.out_h()), std::size_t(g.out_w())});
  if (ws.extent(0) < workspace_floats()) {
    throw std::invalid_argument(std::string(op) + ": ws holds " + std::to_string(ws.extent(0)) +
                                " floats, expected >= " + std::to_string(workspace_floats()) +
                                " (workspace_floats())");
  }
  return static_cast<int>(batch);
}

void Conv2d::forward(const Tensor4& x, const Tensor4& w, const Tensor4& y, const Vector& ws) const {
  const int batch = check_common("Conv2d::forward", x, w, "y [N, K, Ho, Wo]", y, ws);
  const ConvGeometry& g = m_geometry;
  const int k = g.out_channels, crs = static_cast<int>(g.col_rows());
  const int pixels = static_cast<int>(g.col_cols());
  for (int n = 0; n < batch; ++n) {
    const float* col = lowered(g, &x(n, 0, 0, 0), ws.data());
    gemm(false, false, k, pixels, crs, 1.0f, w.data(), crs, col, pixels, 0.0f, &y(n, 0, 0, 0),
         pixels);
  }
}

void Conv2d::backward(const Tensor4& x, const Tensor4& w, const Tensor4& dy, const Tensor4& dw,
                      const Tensor4& dx, const Vector& ws) const {
  const char* op = "Conv2d::backward";
  const int batch = check_common(op, x, w, "dy [N, K, Ho, Wo]", dy, ws);
  require_tensor(op, "dw [K, C, R, S]", dw, {w.extent(0), w.extent(1), w.extent(2), w.extent(3)});
  const bool want_dx = dx.data() != nullptr;
  if (want_dx) {
    require_tensor(op, "dx [N, C, H, W]", dx, {x.extent(0), x.extent(1), x.extent(2), x.extent(3)});
  }
  const ConvGeometry& g = m_geometry;
  const int k = g.out_channels, crs = static_cast<int>(g.col_rows());
  const int pixels = static_cast<int>(g.col_cols());
  for (int n = 0; n < batch; ++n) {
    const float* dy_n = &dy(n, 0, 0, 0);
    const float* col = lowered(g, &x(n, 0, 0, 0), ws.data());
    const float beta = n == 0 ? 0.0f : 1.0f;
    gemm(false, true, k, crs, pixels, 1.0f, dy_n, pixels, col, pixels, beta, dw.data(), crs);
    if (!want_dx) continue;
    // col is consumed: dcol reuses the workspace (or is dx[n] itself when pointwise).
    float* dcol = is_pointwise(g) ? &dx(n, 0, 0, 0) : ws.data();
    gemm(true, false, crs, pixels, k, 1.0f, w.data(), crs, dy_n, pixels, 0.0f, dcol, pixels);
    if (!is_pointwise(g)) col2im(g, dcol, &dx(n, 0, 0, 0));
  }
}

}  // namespace scaletune::kernels
