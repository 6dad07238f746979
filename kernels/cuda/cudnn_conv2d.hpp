#pragma once
// 2-D convolution (no bias) on the device through cuDNN's convolution API, with the op layer's
// geometry (kernels/ops/conv_geometry.hpp) and the host Conv2d's semantics: cross-correlation,
// NCHW, weights [K, C, R, S], gradients overwritten; fp32, fp16 or bf16 data.

#include <cudnn.h>

#include <cstddef>

#include "harness/core/dtype.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/detail/unique_handle.hpp"
#include "kernels/ops/conv_geometry.hpp"

namespace scaletune::kernels::cuda {

using ops::ConvGeometry;

/// One convolution shape on a rank's device, for a batch size fixed at construction.
/// Owns the descriptors of x [N, C, H, W], y [N, K, Ho, Wo] (NCHW, float), w [K, C, R, S] and
/// the convolution (CUDNN_CROSS_CORRELATION, pad, stride, no dilation) and the algorithms
/// chosen for forward, backward-data and backward-filter; runs with the context's cuDNN handle
/// on its compute stream, in its one workspace (grown at construction to what the three
/// algorithms need). fp32 data: math type CUDNN_FMA_MATH, fp32 FMA only (CUDNN_DEFAULT_MATH
/// allows TF32 tensor cores on Ampere and later), so results match the host Conv2d to fp32
/// accuracy; fp16 and bf16 data: CUDNN_TENSOR_OP_MATH (tensor cores), fp32 accumulation.
/// All tensors are contiguous device arrays in those layouts. The context must outlive it.
class CudnnConv2d {
 public:
  /// Throws std::invalid_argument on a geometry the host Conv2d refuses or on batch < 1 (before
  /// any device call), CudaError when a cuDNN call fails or cuDNN offers no fp32 algorithm,
  /// DeviceOutOfMemory when the context's workspace cannot grow to what the algorithms need.
  CudnnConv2d(device::CudaContext& context, ConvGeometry g, int batch,
              core::DType dtype = core::DType::fp32);

  const ConvGeometry& geometry() const { return m_geometry; }
  int batch() const { return m_batch; }
  /// Element type of x, w, y and their gradients.
  core::DType dtype() const { return m_dtype; }
  /// Elements of x and dx: batch * C * H * W.
  std::size_t input_floats() const;
  /// Elements of y and dy: batch * K * Ho * Wo.
  std::size_t output_floats() const;
  /// Elements of w and dw: K * C * R * S.
  std::size_t weight_floats() const;
  /// Workspace the three chosen algorithms need (the largest of them), bytes; the context's
  /// workspace is at least this large.
  std::size_t workspace_bytes() const { return m_workspace_bytes; }

  /// y = conv(x, w) (cudnnConvolutionForward, alpha 1, beta 0: y is overwritten), queued on the
  /// context's compute stream.
  /// x: input_floats(), w: weight_floats(), y: output_floats() device elements of dtype().
  /// Throws std::invalid_argument on a null pointer, CudaError when cuDNN fails.
  void forward(const void* x, const void* w, void* y);

  /// dw = weight gradient summed over the batch (cudnnConvolutionBackwardFilter), and
  /// dx = input gradient (cudnnConvolutionBackwardData), both overwritten; dx == nullptr skips
  /// the input gradient (first layer). Sizes as in forward; dy has output_floats().
  /// Throws std::invalid_argument on a null x, w, dy or dw, CudaError when cuDNN fails.
  void backward(const void* x, const void* w, const void* dy, void* dw, void* dx);

 private:
  template <class Handle, auto Destroy>
  using UniqueHandle = device::detail::UniqueHandle<Handle, Destroy>;

  device::CudaContext* m_context;
  ConvGeometry m_geometry;
  int m_batch;
  core::DType m_dtype;
  UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> m_x_desc;
  UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> m_y_desc;
  UniqueHandle<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor> m_w_desc;
  UniqueHandle<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor> m_conv_desc;
  cudnnConvolutionFwdAlgo_t m_forward_algo{};
  cudnnConvolutionBwdDataAlgo_t m_backward_data_algo{};
  cudnnConvolutionBwdFilterAlgo_t m_backward_filter_algo{};
  std::size_t m_workspace_bytes = 0;
};

}  // namespace scaletune::kernels::cuda
