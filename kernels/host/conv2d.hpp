#pragma once
// 2-D convolution (no bias) on the host by im2col + GEMM, the lowering of Chellapilla, Puri and
// Simard, "High Performance Convolutional Neural Networks for Document Processing" (2006), in
// Caffe's column layout (rows (c, r, s), columns (oh, ow)).

#include <cstddef>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Geometry of one 2-D convolution without bias (square kernel, symmetric zero padding).
/// Sizes are counts of channels or pixels.
struct ConvGeometry {
  int in_channels = 0, out_channels = 0, kernel = 1, stride = 1, pad = 0;
  int in_h = 0, in_w = 0;
  /// Output height, (in_h + 2*pad - kernel) / stride + 1 (floor; meaningful once validated).
  int out_h() const;
  /// Output width, (in_w + 2*pad - kernel) / stride + 1.
  int out_w() const;
  /// Multiply-adds of the forward pass per sample:
  /// out_channels * out_h * out_w * in_channels * kernel * kernel.
  double macs_per_sample() const;
  /// Weights: out_channels * in_channels * kernel * kernel.
  std::size_t weight_count() const;
  /// Rows of the im2col matrix, in_channels * kernel * kernel (the GEMM's inner dimension).
  std::size_t col_rows() const;
  /// Columns of the im2col matrix, out_h * out_w (pixels of one output plane).
  std::size_t col_cols() const;
};

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
