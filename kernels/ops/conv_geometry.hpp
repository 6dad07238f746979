#pragma once
// The geometry of a 2-D convolution, shared by every backend's convolution.

#include <cstddef>

namespace scaletune::ops {

/// Geometry of one 2-D convolution without bias (square kernel, symmetric zero padding, no
/// dilation, cross-correlation as every DL framework computes it). Sizes are counts of channels
/// or pixels.
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

/// Throws std::invalid_argument on a geometry no convolution can run: a non-positive channel
/// count, kernel, stride or input size, a negative pad, or an output smaller than 1x1.
void validate(const ConvGeometry& g);

}  // namespace scaletune::ops
