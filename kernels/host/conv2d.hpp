#pragma once
// 2-D convolution (no bias) on the host by im2col + GEMM, the lowering of Chellapilla, Puri and
// Simard, "High Performance Convolutional Neural Networks for Document Processing" (2006), in
// Caffe's column layout (rows (c, r, s), columns (oh, ow)).

#include <cstddef>

#include "kernels/host/tensor.hpp"
#include "kernels/ops/conv_geometry.hpp"

namespace scaletune::kernels {

using ops::ConvGeometry;

/// Convolution by im2col + GEMM, one image at a time (Chellapilla et al. 2006; Caffe's layout).
/// Tensors are LayoutRight host views: x [N, C, H, W], w [K, C, R, S] with R = S = kernel,
/// y and dy [N, K, Ho, Wo]. A 1x1, stride-1, unpadded convolution uses the input planes
/// [C, H*W] directly as the GEMM operand and needs no workspace.
class Conv2d {
 public:
  /// Throws std::invalid_argument on a bad geometry: a non-positive channel count, kernel,
  /// stride or input size, a negative pad, or an output smaller than 1x1.
  explicit Conv2d(ConvGeometry g);

  const ConvGeometry& geometry() const { return m_geometry; }

  /// Floats of workspace forward/backward need: col_rows() * col_cols(), or 0 for a 1x1
  /// stride-1 pad-0 conv (which uses the input directly as the GEMM operand).
  std::size_t workspace_floats() const;

  /// y[N,K,Ho,Wo] = conv(x[N,C,H,W], w[K,C,R,S]); y is overwritten. ws: >= workspace_floats()
  /// floats. Per image n: col[C*R*S, Ho*Wo] = im2col(x[n]); y[n] = w[K, C*R*S] . col.
  /// Throws std::invalid_argument naming the tensor and its expected shape on a mismatch
  /// (N >= 1 is taken from x).
  void forward(const Tensor4& x, const Tensor4& w, const Tensor4& y, const Vector& ws) const;

  /// dw[K,C,R,S] = sum over the batch of the weight gradient (overwritten);
  /// dx[N,C,H,W] = input gradient (overwritten), skipped when dx.data() == nullptr (first
  /// layer). Per image n: dw += dy[n] . col^T; dcol = w^T . dy[n]; dx[n] = col2im(dcol).
  /// Throws std::invalid_argument naming the tensor and its expected shape on a mismatch.
  void backward(const Tensor4& x, const Tensor4& w, const Tensor4& dy, const Tensor4& dw,
                const Tensor4& dx, const Vector& ws) const;

 private:
  /// Checks x, w, the output-shaped tensor y_or_dy and ws; returns the batch size N.
  int check_common(const char* op, const Tensor4& x, const Tensor4& w, const char* y_name,
                   const Tensor4& y_or_dy, const Vector& ws) const;

  ConvGeometry m_geometry;
};

}  // namespace scaletune::kernels
