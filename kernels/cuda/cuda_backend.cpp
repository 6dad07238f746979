// The CUDA backend's memory, element-wise ops, losses and optimizer updates.
#include "kernels/cuda/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "harness/device/detail/device_memory.hpp"
#include "kernels/cuda/activation.hpp"
#include "kernels/cuda/cast.hpp"
#include "kernels/cuda/detail/tensor_args.hpp"
#include "kernels/cuda/dropout.hpp"
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/gelu.hpp"
#include "kernels/cuda/loss.hpp"
#include "kernels/cuda/nonfinite.hpp"
#include "kernels/cuda/optimizer.hpp"

namespace scaletune::kernels::cuda {
namespace {

using detail::require_elements;
using detail::require_same_numel;

/// The kernels' form of a master update: device pointers of its optional tensors.
MixedPrecisionStep mixed_step(const ops::MasterUpdate& update) {
  MixedPrecisionStep step;
  step.unscale = update.unscale;
  if (update.found_nonfinite.defined())
    step.found_nonfinite = static_cast<const int*>(update.found_nonfinite.data());
  if (update.copy.defined()) {
    step.param_copy = update.copy.data();
    step.param_copy_type = update.copy.dtype();
  }
  return step;
}

/// Throws std::invalid_argument unless the update's copy (if any) holds params' count and its
/// flag (if any) is one int32.
void require_update_tensors(const ops::Tensor& params, const ops::MasterUpdate& update) {
  if (update.copy.defined()) require_same_numel("master update copy", params, update.copy);
  if (update.found_nonfinite.defined())
    require_elements("master update", "found_nonfinite", update.found_nonfinite, ops::DType::int32,
                     1);
}

}  // namespace

CudaBackend::CudaBackend(device::CudaContext& context)
    : m_context(context), m_bad_label(1), m_sparse_count(1) {
  SCALETUNE_CUDA_CHECK(cudaMemsetAsync(m_bad_label.data(), 0, sizeof(int), stream()));
}

bool CudaBackend::computes_in(ops::DType dtype) const {
  switch (dtype) {
    case ops::DType::fp32:
    case ops::DType::fp16:
      return true;
    case ops::DType::bf16:
      return m_context.info().bf16;
    default:
      return false;
  }
}

ops::Buffer CudaBackend::allocate(std::size_t bytes, const std::string& label) {
  static_cast<void>(label);
  void* data = device::detail::device_malloc(bytes);
  if (data != nullptr) SCALETUNE_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, stream()));
  // cudaFree waits for the device, so a buffer is never freed under running work.
  return {data, bytes, [](void* p) { device::detail::device_free(p); }};
}

void CudaBackend::upload(const ops::Tensor& dst, std::span<const std::byte> host) {
  if (host.size() != dst.bytes())
    throw std::invalid_argument("CudaBackend::upload: " + std::to_string(host.size()) +
                                " bytes for " + dst.describe());
  if (host.empty()) return;
  SCALETUNE_CUDA_CHECK(
      cudaMemcpyAsync(dst.data(), host.data(), host.size(), cudaMemcpyHostToDevice, stream()));
  SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaBackend::download(const ops::Tensor& src, std::span<std::byte> host) {
  if (host.size() != src.bytes())
    throw std::invalid_argument("CudaBackend::download: " + std::to_string(host.size()) +
                                " bytes for " + src.describe());
  if (!host.empty())
    SCALETUNE_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), src.data(), host.size(), cudaMemcpyDeviceToHost, stream()));
  SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

std::int64_t CudaBackend::workspace_bytes() const {
  return static_cast<std::int64_t>(m_context.workspace_bytes() + m_scratch.size_bytes());
}

void* CudaBackend::scratch(std::size_t bytes) {
  if (m_scratch.size_bytes() < bytes) {
    SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream()));  // no queued kernel uses the old one
    m_scratch = device::DeviceBuffer<std::byte>(bytes);
  }
  return m_scratch.data();
}

void CudaBackend::fill(const ops::Tensor& x, float value) {
  if (value == 0.0f) {  // zero bits are 0 in every element type
    SCALETUNE_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.bytes(), stream()));
    return;
  }
  cuda::fill(stream(), x.dtype(), x.numel(), value, x.data());
}

void CudaBackend::copy(const ops::Tensor& src, const ops::Tensor& dst) {
  require_same_numel("CudaBackend::copy", src, dst);
  if (src.dtype() == dst.dtype()) {
    if (src.data() != dst.data())
      SCALETUNE_CUDA_CHECK(
          cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice, stream()));
    return;
  }
  cast(stream(), src.numel(), src.dtype(), src.data(), dst.dtype(), dst.data());
}

void CudaBackend::add(const ops::Tensor& x, const ops::Tensor& y) {
  require_same_numel("CudaBackend::add", x, y);
  detail::require_same_dtype("CudaBackend::add", x, y);
  add_inplace(stream(), y.dtype(), y.numel(), x.data(), y.data());
}

void CudaBackend::scale(const ops::Tensor& x, float alpha) {
  cuda::scale(stream(), x.dtype(), x.numel(), alpha, x.data(), x.data());
}

void CudaBackend::copy_columns(const ops::Tensor& src, std::int64_t src_col, const ops::Tensor& dst,
                               std::int64_t dst_col, std::int64_t cols, bool accumulate) {
  const detail::Matrix s = detail::as_matrix("CudaBackend::copy_columns", src);
  const detail::Matrix d = detail::as_matrix("CudaBackend::copy_columns", dst);
  detail::require_column_block("CudaBackend::copy_columns", s, src_col, d, dst_col, cols);
  detail::require_same_dtype("CudaBackend::copy_columns", src, dst);
  const std::size_t element = core::dtype_bytes(src.dtype());
  const auto* from = static_cast<const std::byte*>(src.data()) + src_col * element;
  auto* to = static_cast<std::byte*>(dst.data()) + dst_col * element;
  if (s.rows == 0 || cols == 0) return;
  if (!accumulate) {
    SCALETUNE_CUDA_CHECK(cudaMemcpy2DAsync(
        to, std::size_t(d.cols) * element, from, std::size_t(s.cols) * element,
        std::size_t(cols) * element, std::size_t(s.rows), cudaMemcpyDeviceToDevice, stream()));
    return;
  }
  detail::require_dtype_fp32("CudaBackend::copy_columns (accumulate)", src);
  // Row-major [rows, cols] with row stride ld is column-major [cols, rows] with leading
  // dimension ld: dst = 1 * src + 1 * dst, in place (C = B, ldc = ldb).
  const float one = 1.0f;
  SCALETUNE_CUBLAS_CHECK(cublasSgeam(m_context.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(cols),
                                     int(s.rows), &one, reinterpret_cast<const float*>(from),
                                     int(s.cols), &one, reinterpret_cast<const float*>(to),
                                     int(d.cols), reinterpret_cast<float*>(to), int(d.cols)));
}

void CudaBackend::relu_forward(const ops::Tensor& x, const ops::Tensor& y) {
  require_elements("CudaBackend::relu_forward", "y", y, x.dtype(), x.numel());
  cuda::relu_forward(stream(), x.dtype(), x.numel(), x.data(), y.data());
}

void CudaBackend::relu_backward(const ops::Tensor& y, const ops::Tensor& dy,
                                const ops::Tensor& dx) {
  require_elements("CudaBackend::relu_backward", "dy", dy, y.dtype(), y.numel());
  require_elements("CudaBackend::relu_backward", "dx", dx, y.dtype(), y.numel());
  cuda::relu_backward(stream(), y.dtype(), y.numel(), y.data(), dy.data(), dx.data());
}

void CudaBackend::gelu_forward(const ops::Tensor& x, const ops::Tensor& y) {
  require_elements("CudaBackend::gelu_forward", "y", y, x.dtype(), x.numel());
  cuda::gelu_forward(stream(), x.dtype(), x.numel(), x.data(), y.data());
}

void CudaBackend::gelu_backward(const ops::Tensor& x, const ops::Tensor& dy,
                                const ops::Tensor& dx) {
  require_elements("CudaBackend::gelu_backward", "dy", dy, x.dtype(), x.numel());
  require_elements("CudaBackend::gelu_backward", "dx", dx, x.dtype(), x.numel());
  cuda::gelu_backward(stream(), x.dtype(), x.numel(), x.data(), dy.data(), dx.data());
}

void CudaBackend::dropout_forward(const ops::Tensor& x, const ops::DropoutMask& mask,
                                  const ops::Tensor& y) {
  const detail::Matrix m = detail::as_matrix("CudaBackend::dropout_forward", x);
  require_elements("CudaBackend::dropout_forward", "y", y, x.dtype(), x.numel());
  cuda::dropout_forward(stream(), x.dtype(), m.rows, m.cols, mask, x.data(), y.data());
}

void CudaBackend::dropout_backward(const ops::Tensor& dy, const ops::DropoutMask& mask,
                                   const ops::Tensor& dx) {
  const detail::Matrix m = detail::as_matrix("CudaBackend::dropout_backward", dy);
  require_elements("CudaBackend::dropout_backward", "dx", dx, dy.dtype(), dy.numel());
  cuda::dropout_backward(stream(), dy.dtype(), m.rows, m.cols, mask, dy.data(), dx.data());
}

void CudaBackend::softmax_cross_entropy(const ops::Tensor& logits, const ops::Tensor& labels,
                                        float scale, float grad_scale, const ops::Tensor& dlogits,
                                        const ops::Tensor& loss) {
  constexpr const char* kOp = "CudaBackend::softmax_cross_entropy";
  const detail::Matrix m = detail::as_matrix(kOp, logits);
  require_elements(kOp, "dlogits", dlogits, logits.dtype(), logits.numel());
  require_elements(kOp, "labels", labels, ops::DType::int32, m.rows);
  require_elements(kOp, "loss", loss, ops::DType::fp64, 1);
  const std::size_t bytes = loss_workspace_bytes(m.rows);
  cuda::softmax_cross_entropy(stream(), logits.dtype(), m.rows, m.cols, scale, grad_scale,
                              logits.data(), labels.as<std::int32_t>(), dlogits.data(),
                              loss.as<double>(), bad_label_flag(), scratch(bytes), bytes);
}

void CudaBackend::bce_with_logits(const ops::Tensor& logits, const ops::Tensor& labels, float scale,
                                  float grad_scale, const ops::Tensor& dlogits,
                                  const ops::Tensor& loss) {
  constexpr const char* kOp = "CudaBackend::bce_with_logits";
  const std::int64_t rows = logits.dim(0);
  require_elements(kOp, "logits", logits, logits.dtype(), rows);  // [N, 1]
  require_elements(kOp, "dlogits", dlogits, logits.dtype(), rows);
  require_elements(kOp, "labels", labels, ops::DType::fp32, rows);
  require_elements(kOp, "loss", loss, ops::DType::fp64, 1);
  const std::size_t bytes = loss_workspace_bytes(rows);
  binary_cross_entropy_with_logits(stream(), logits.dtype(), rows, scale, grad_scale, logits.data(),
                                   labels.as<float>(), dlogits.data(), loss.as<double>(),
                                   bad_label_flag(), scratch(bytes), bytes);
}

void CudaBackend::sgd_momentum(const ops::Tensor& params, const ops::Tensor& grads,
                               const ops::Tensor& velocity, const ops::SgdOptions& opt,
                               const ops::MasterUpdate& update) {
  require_same_numel("CudaBackend::sgd_momentum", params, grads);
  require_same_numel("CudaBackend::sgd_momentum", params, velocity);
  require_update_tensors(params, update);
  sgd_momentum_step(stream(), params.numel(), opt, mixed_step(update), params.as<float>(),
                    grads.as<float>(), velocity.as<float>());
}

void CudaBackend::adam(const ops::Tensor& params, const ops::Tensor& grads, const ops::Tensor& m,
                       const ops::Tensor& v, int step, const ops::AdamOptions& opt,
                       const ops::MasterUpdate& update) {
  require_same_numel("CudaBackend::adam", params, grads);
  require_same_numel("CudaBackend::adam", params, m);
  require_same_numel("CudaBackend::adam", params, v);
  require_update_tensors(params, update);
  adam_step(stream(), params.numel(), step, opt, mixed_step(update), params.as<float>(),
            grads.as<float>(), m.as<float>(), v.as<float>());
}

void CudaBackend::check_nonfinite(const ops::Tensor& x, const ops::Tensor& flag) {
  ops::require_shape("CudaBackend::check_nonfinite", "flag", flag, {1});
  cuda::check_nonfinite(stream(), x.dtype(), x.numel(), x.data(), flag.as<std::int32_t>());
}

}  // namespace scaletune::kernels::cuda
