#pragma once
// Shape and memory layout of a 4-D activation tensor [N, C, H, W] on the device, as the
// pooling and batch-normalisation kernels take it.

#include <cstdint>

namespace scaletune::kernels::cuda {

/// Order of a 4-D activation's elements in memory (contiguous, no padding).
enum class ActivationLayout {
  nchw,  ///< x[n][c][h][w]: each channel a contiguous H * W plane (the host ops' layout)
  nhwc,  ///< x[n][h][w][c]: channels innermost (cuDNN's preferred layout for 16-bit tensors)
};

/// An [N, C, H, W] activation: its layout and extents (each >= 1 where a kernel says so).
struct ActivationShape {
  ActivationLayout layout = ActivationLayout::nchw;
  std::int64_t n = 0;  ///< batch
  std::int64_t c = 0;  ///< channels
  std::int64_t h = 0;  ///< height
  std::int64_t w = 0;  ///< width

  /// H * W, the elements of one (n, c) plane.
  std::int64_t area() const { return h * w; }
  /// N * C * H * W.
  std::int64_t elements() const { return n * c * h * w; }
};

}  // namespace scaletune::kernels::cuda
