#include "cudnn_conv2d.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/library_types.hpp"

namespace scaletune::kernels::cuda {
namespace {

using device::CudaError;
using device::detail::UniqueHandle;

/// The raw handles the algorithm and workspace queries take.
struct Descriptors {
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  bool tensor_ops;  ///< whether tensor-core algorithms may be chosen (16-bit data)
};

/// g, once ops::validate (the one place the geometry rules live) accepted it and batch >= 1;
/// throws std::invalid_argument otherwise.
ConvGeometry validated(const ConvGeometry& g, int batch) {
  ops::validate(g);
  if (batch < 1) {
    throw std::invalid_argument("CudnnConv2d: batch = " + std::to_string(batch) +
                                ", expected >= 1");
  }
  return g;
}

/// "batch 2, 3 -> 16 channels, 7x7 kernel, stride 2, pad 3, input 32x32", for error messages.
std::string describe(const ConvGeometry& g, int batch) {
  return "batch " + std::to_string(batch) + ", " + std::to_string(g.in_channels) + " -> " +
         std::to_string(g.out_channels) + " channels, " + std::to_string(g.kernel) + "x" +
         std::to_string(g.kernel) + " kernel, stride " + std::to_string(g.stride) + ", pad " +
         std::to_string(g.pad) + ", input " + std::to_string(g.in_h) + "x" + std::to_string(g.in_w);
}

/// Throws std::invalid_argument naming `op` and the first of `pointers` that is null.
void require_non_null(const char* op,
                      std::initializer_list<std::pair<const char*, const void*>> pointers) {
  for (const auto& [name, pointer] : pointers) {
    if (pointer == nullptr) {
      throw std::invalid_argument(std::string(op) + ": " + name +
                                  " is null, expected a device pointer");
    }
  }
}

/// A packed NCHW tensor [n, c, h, w] of `type`.
UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> make_tensor_desc(
    cudnnDataType_t type, int n, int c, int h, int w) {
  cudnnTensorDescriptor_t raw = nullptr;
  SCALETUNE_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
  UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> desc(raw);
  SCALETUNE_CUDNN_CHECK(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NCHW, type, n, c, h, w));
  return desc;
}

/// Weights [K, C, R, S] of `type`.
UniqueHandle<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor> make_filter_desc(
    cudnnDataType_t type, const ConvGeometry& g) {
  cudnnFilterDescriptor_t raw = nullptr;
  SCALETUNE_CUDNN_CHECK(cudnnCreateFilterDescriptor(&raw));
  UniqueHandle<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor> desc(raw);
  SCALETUNE_CUDNN_CHECK(cudnnSetFilter4dDescriptor(raw, type, CUDNN_TENSOR_NCHW, g.out_channels,
                                                   g.in_channels, g.kernel, g.kernel));
  return desc;
}

/// Cross-correlation with symmetric pad and stride, no dilation, fp32 compute; FMA math only for
/// fp32 data (no TF32), tensor-op math for 16-bit data.
UniqueHandle<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor> make_conv_desc(
    const ConvGeometry& g, bool tensor_ops) {
  cudnnConvolutionDescriptor_t raw = nullptr;
  SCALETUNE_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&raw));
  UniqueHandle<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor> desc(raw);
  SCALETUNE_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(raw, g.pad, g.pad, g.stride, g.stride, 1, 1,
                                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  SCALETUNE_CUDNN_CHECK(
      cudnnSetConvolutionMathType(raw, tensor_ops ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  return desc;
}

/// The algorithm of the first heuristic result (best first) cuDNN can run (status success),
/// without tensor-op math unless `tensor_ops`; throws CudaError naming `query` and the shape when
/// there is none.
template <class Perf>
auto first_usable(const char* query, std::span<const Perf> results, bool tensor_ops,
                  const ConvGeometry& g, int batch) {
  for (const Perf& r : results) {
    const bool uses_tensor_ops =
        r.mathType == CUDNN_TENSOR_OP_MATH || r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (r.status == CUDNN_STATUS_SUCCESS && (tensor_ops || !uses_tensor_ops)) return r.algo;
  }
  throw CudaError(std::string(query) + " offered no usable algorithm for " + describe(g, batch));
}

cudnnConvolutionFwdAlgo_t pick_forward(const Descriptors& d, const ConvGeometry& g, int batch) {
  std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perf{};
  int returned = 0;
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      d.handle, d.x, d.w, d.conv, d.y, static_cast<int>(perf.size()), &returned, perf.data()));
  return first_usable("cudnnGetConvolutionForwardAlgorithm_v7",
                      std::span<const cudnnConvolutionFwdAlgoPerf_t>(perf.data(), returned),
                      d.tensor_ops, g, batch);
}

cudnnConvolutionBwdDataAlgo_t pick_backward_data(const Descriptors& d, const ConvGeometry& g,
                                                 int batch) {
  std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> perf{};
  int returned = 0;
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      d.handle, d.w, d.y, d.conv, d.x, static_cast<int>(perf.size()), &returned, perf.data()));
  return first_usable("cudnnGetConvolutionBackwardDataAlgorithm_v7",
                      std::span<const cudnnConvolutionBwdDataAlgoPerf_t>(perf.data(), returned),
                      d.tensor_ops, g, batch);
}

cudnnConvolutionBwdFilterAlgo_t pick_backward_filter(const Descriptors& d, const ConvGeometry& g,
                                                     int batch) {
  std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> perf{};
  int returned = 0;
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      d.handle, d.x, d.y, d.conv, d.w, static_cast<int>(perf.size()), &returned, perf.data()));
  return first_usable("cudnnGetConvolutionBackwardFilterAlgorithm_v7",
                      std::span<const cudnnConvolutionBwdFilterAlgoPerf_t>(perf.data(), returned),
                      d.tensor_ops, g, batch);
}

/// The largest workspace, in bytes, the three chosen algorithms need.
std::size_t largest_workspace_bytes(const Descriptors& d, cudnnConvolutionFwdAlgo_t forward,
                                    cudnnConvolutionBwdDataAlgo_t backward_data,
                                    cudnnConvolutionBwdFilterAlgo_t backward_filter) {
  std::size_t forward_bytes = 0, data_bytes = 0, filter_bytes = 0;
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(d.handle, d.x, d.w, d.conv, d.y,
                                                                forward, &forward_bytes));
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
      d.handle, d.w, d.y, d.conv, d.x, backward_data, &data_bytes));
  SCALETUNE_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
      d.handle, d.x, d.y, d.conv, d.w, backward_filter, &filter_bytes));
  return std::max({forward_bytes, data_bytes, filter_bytes});
}

}  // namespace

CudnnConv2d::CudnnConv2d(device::CudaContext& context, ConvGeometry g, int batch, core::DType dtype)
    : m_context(&context),
      m_geometry(validated(g, batch)),
      m_batch(batch),
      m_dtype(dtype),
      m_x_desc(make_tensor_desc(detail::cudnn_type("CudnnConv2d", dtype), batch, g.in_channels,
                                g.in_h, g.in_w)),
      m_y_desc(make_tensor_desc(detail::cudnn_type("CudnnConv2d", dtype), batch, g.out_channels,
                                g.out_h(), g.out_w())),
      m_w_desc(make_filter_desc(detail::cudnn_type("CudnnConv2d", dtype), g)),
      m_conv_desc(make_conv_desc(g, dtype != core::DType::fp32)) {
  const Descriptors d{context.cudnn(), m_x_desc.get(),    m_y_desc.get(),
                      m_w_desc.get(),  m_conv_desc.get(), dtype != core::DType::fp32};
  m_forward_algo = pick_forward(d, g, batch);
  m_backward_data_algo = pick_backward_data(d, g, batch);
  m_backward_filter_algo = pick_backward_filter(d, g, batch);
  m_workspace_bytes =
      largest_workspace_bytes(d, m_forward_algo, m_backward_data_algo, m_backward_filter_algo);
  context.workspace(m_workspace_bytes);
}

std::size_t CudnnConv2d::input_floats() const {
  return static_cast<std::size_t>(m_batch) * m_geometry.in_channels * m_geometry.in_h *
         m_geometry.in_w;
}

std::size_t CudnnConv2d::output_floats() const {
  return static_cast<std::size_t>(m_batch) * m_geometry.out_channels * m_geometry.out_h() *
         m_geometry.out_w();
}

std::size_t CudnnConv2d::weight_floats() const {
  return m_geometry.weight_count();
}

void CudnnConv2d::forward(const void* x, const void* w, void* y) {
  require_non_null("CudnnConv2d::forward", {{"x", x}, {"w", w}, {"y", y}});
  const float one = 1.0f, zero = 0.0f;
  void* workspace = m_context->workspace(m_workspace_bytes);  // large enough: no device call
  SCALETUNE_CUDNN_CHECK(cudnnConvolutionForward(
      m_context->cudnn(), &one, m_x_desc.get(), x, m_w_desc.get(), w, m_conv_desc.get(),
      m_forward_algo, workspace, m_workspace_bytes, &zero, m_y_desc.get(), y));
}

void CudnnConv2d::backward(const void* x, const void* w, const void* dy, void* dw, void* dx) {
  require_non_null("CudnnConv2d::backward", {{"x", x}, {"w", w}, {"dy", dy}, {"dw", dw}});
  const float one = 1.0f, zero = 0.0f;
  void* workspace = m_context->workspace(m_workspace_bytes);
  SCALETUNE_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
      m_context->cudnn(), &one, m_x_desc.get(), x, m_y_desc.get(), dy, m_conv_desc.get(),
      m_backward_filter_algo, workspace, m_workspace_bytes, &zero, m_w_desc.get(), dw));
  if (dx == nullptr) return;
  SCALETUNE_CUDNN_CHECK(cudnnConvolutionBackwardData(
      m_context->cudnn(), &one, m_w_desc.get(), w, m_y_desc.get(), dy, m_conv_desc.get(),
      m_backward_data_algo, workspace, m_workspace_bytes, &zero, m_x_desc.get(), dx));
}

}  // namespace scaletune::kernels::cuda
