#pragma once
// 2-D convolution (no bias) on the device through cuDNN's convolution API, behind the host
// Conv2d's geometry (kernels/host/conv2d.hpp) and with its semantics: cross-correlation, NCHW,
// fp32, weights [K, C, R, S], gradients overwritten.

#include <cudnn.h>

#include <cstddef>

#include "harness/device/detail/unique_handle.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/host/conv2d.hpp"

namespace scaletune::kernels::cuda {

/// One convolution shape on the current device, for a batch size fixed at construction.
/// Owns a cuDNN handle, the descriptors of x [N, C, H, W], y [N, K, Ho, Wo] (NCHW, float),
/// w [K, C, R, S] and the convolution (CUDNN_CROSS_CORRELATION, pad, stride, no dilation), the
/// algorithms chosen for forward, backward-data and backward-filter, and one workspace large
/// enough for all three. Math type CUDNN_FMA_MATH: fp32 FMA only (CUDNN_DEFAULT_MATH allows
/// TF32 tensor cores on Ampere and later), so results match the host Conv2d to fp32 accuracy.
/// All tensors are contiguous device arrays in those layouts; work runs on the default stream.
class CudnnConv2d {
 public:
  /// Throws std::invalid_argument on a geometry the host Conv2d refuses or on batch < 1,
  /// CudaError "no CUDA device" without a device, CudaError when a cuDNN call fails or cuDNN
  /// offers no fp32 algorithm, DeviceOutOfMemory when the workspace does not fit.
  CudnnConv2d(ConvGeometry g, int batch);

  const ConvGeometry& geometry() const { return m_geometry; }
  int batch() const { return m_batch; }
  /// Floats of x and dx: batch * C * H * W.
  std::size_t input_floats() const;
  /// Floats of y and dy: batch * K * Ho * Wo.
  std::size_t output_floats() const;
  /// Floats of w and dw: K * C * R * S.
  std::size_t weight_floats() const;
  /// Bytes of the owned workspace: the largest the three chosen algorithms need.
  std::size_t workspace_bytes() const { return m_workspace.size_bytes(); }

  /// y = conv(x, w) (cudnnConvolutionForward, alpha 1, beta 0: y is overwritten).
  /// x: input_floats(), w: weight_floats(), y: output_floats() device floats.
  /// Throws std::invalid_argument on a null pointer, CudaError when cuDNN fails.
  void forward(const float* x, const float* w, float* y);

  /// dw = weight gradient summed over the batch (cudnnConvolutionBackwardFilter), and
  /// dx = input gradient (cudnnConvolutionBackwardData), both overwritten; dx == nullptr skips
  /// the input gradient (first layer). Sizes as in forward; dy has output_floats().
  /// Throws std::invalid_argument on a null x, w, dy or dw, CudaError when cuDNN fails.
  void backward(const float* x, const float* w, const float* dy, float* dw, float* dx);

 private:
  ConvGeometry m_geometry;
  int m_batch;
  device::detail::UniqueHandle<cudnnHandle_t, &cudnnDestroy> m_handle;
  device::detail::UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> m_x_desc;
  device::detail::UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> m_y_desc;
  device::detail::UniqueHandle<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor> m_w_desc;
  device::detail::UniqueHandle<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor>
      m_conv_desc;
  cudnnConvolutionFwdAlgo_t m_forward_algo{};
  cudnnConvolutionBwdDataAlgo_t m_backward_data_algo{};
  cudnnConvolutionBwdFilterAlgo_t m_backward_filter_algo{};
  device::DeviceBuffer<std::byte> m_workspace;
};

}  // namespace scaletune::kernels::cuda
