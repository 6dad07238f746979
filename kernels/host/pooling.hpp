#pragma once
// Pooling ops: max pooling with argmax kept for backward, and global average pooling.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Max pooling, square window, -inf padding (padded positions never win); keeps the argmax
/// of every output for backward. Ties go to the first maximum in row-major window order
/// (top row first, left to right), so results are deterministic.
class MaxPool2d {
 public:
  /// kernel >= 1, stride >= 1, 0 <= pad <= kernel/2 (as PyTorch requires, so every window
  /// holds an input element); std::invalid_argument otherwise.
  MaxPool2d(int kernel, int stride, int pad);

  /// y[n,c,oh,ow] = max over the window at (oh*stride - pad, ow*stride - pad) of x.
  /// x [N,C,H,W], y [N,C,Ho,Wo] with Ho = out_size(H, ...), Wo = out_size(W, ...); host.
  /// Throws std::invalid_argument on a wrong shape or a window larger than the padded input.
  void forward(const Tensor4& x, const Tensor4& y);

  /// dx overwritten: zeros, plus each dy[n,c,oh,ow] added at its output's argmax (windows
  /// that overlap accumulate). dy [N,C,Ho,Wo] and dx [N,C,H,W] of the last forward; host.
  /// Throws std::invalid_argument on a wrong shape, std::logic_error before any forward.
  void backward(const Tensor4& dy, const Tensor4& dx);

  /// Output extent (in + 2*pad - kernel)/stride + 1 (floor), e.g. 112 -> 56 for 3/2/1 as in
  /// ResNet's stem. Throws std::invalid_argument when in + 2*pad < kernel or an argument is
  /// out of range (in >= 1, kernel >= 1, stride >= 1, pad >= 0).
  static int out_size(int in, int kernel, int stride, int pad);

 private:
  int m_kernel;
  int m_stride;
  int m_pad;
  std::vector<std::size_t> m_in_shape;  // [N,C,H,W] of the last forward's x
  std::vector<std::int32_t> m_argmax;   // [N,C,Ho,Wo]: h*W + w of the winner in its plane
};

/// y[n,c] = mean of x[n,c,:,:] over H and W (accumulated in double). x [N,C,H,W] with
/// H*W >= 1, y [N,C]; host. Throws std::invalid_argument on a wrong shape.
void global_avg_pool_forward(const Tensor4& x, const Tensor2& y);

/// dx[n,c,h,w] = dy[n,c]/(H*W), overwritten. dy [N,C], dx [N,C,H,W]; host. Throws
/// std::invalid_argument on a wrong shape.
void global_avg_pool_backward(const Tensor2& dy, const Tensor4& dx);

}  // namespace scaletune::kernels
