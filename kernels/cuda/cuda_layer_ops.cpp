// The CUDA backend's stateful ops (convolution, batch norm, max pooling, attention, embedding
// bags), global average pooling and the sparse embedding optimizers.
#include <cudnn.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/device/cuda_error.hpp"
#include "harness/device/detail/unique_handle.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/batch_norm.hpp"
#include "kernels/cuda/causal_softmax.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cudnn_conv2d.hpp"
#include "kernels/cuda/detail/library_types.hpp"
#include "kernels/cuda/detail/tensor_args.hpp"
#include "kernels/cuda/embedding_bag.hpp"
#include "kernels/cuda/pooling.hpp"
#include "kernels/cuda/sparse_optimizer.hpp"

namespace scaletune::kernels::cuda {
namespace {

using TensorDesc =
    device::detail::UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor>;
using PoolingDesc =
    device::detail::UniqueHandle<cudnnPoolingDescriptor_t, &cudnnDestroyPoolingDescriptor>;

/// A packed NCHW tensor descriptor [n, c, h, w] of `dtype`.
TensorDesc tensor_desc(const char* op, ops::DType dtype, int n, int c, int h, int w) {
  cudnnTensorDescriptor_t raw = nullptr;
  SCALETUNE_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
  TensorDesc desc(raw);
  SCALETUNE_CUDNN_CHECK(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NCHW,
                                                   detail::cudnn_type(op, dtype), n, c, h, w));
  return desc;
}

using detail::require_elements;

/// Throws std::invalid_argument naming `op` unless each of `tensors` (name, tensor) holds
/// `numel` elements of `dtype`.
void require_all(const char* op, ops::DType dtype, std::int64_t numel,
                 std::initializer_list<std::pair<const char*, const ops::Tensor*>> tensors) {
  for (const auto& [name, t] : tensors) require_elements(op, name, *t, dtype, numel);
}

/// The kernels' NCHW shape of an [N, C, H, W] tensor.
ActivationShape nchw(const ops::Tensor& t) {
  return {ActivationLayout::nchw, t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
}

/// Throws std::invalid_argument unless x and y are `shape` in `dtype` and gamma, beta [C] fp32.
void require_batch_norm_forward(const ActivationShape& shape, ops::DType dtype,
                                const ops::Tensor& x, const ops::Tensor& gamma,
                                const ops::Tensor& beta, const ops::Tensor& y) {
  constexpr const char* kOp = "CudaBackend batch_norm forward";
  require_all(kOp, dtype, shape.elements(), {{"x", &x}, {"y", &y}});
  require_all(kOp, ops::DType::fp32, shape.c, {{"gamma", &gamma}, {"beta", &beta}});
}

/// Throws std::invalid_argument unless x, dy and dx are `shape` in `dtype` and gamma, dgamma,
/// dbeta [C] fp32.
void require_batch_norm_backward(const ActivationShape& shape, ops::DType dtype,
                                 const ops::Tensor& x, const ops::Tensor& gamma,
                                 const ops::Tensor& dy, const ops::Tensor& dgamma,
                                 const ops::Tensor& dbeta, const ops::Tensor& dx) {
  constexpr const char* kOp = "CudaBackend batch_norm backward";
  require_all(kOp, dtype, shape.elements(), {{"x", &x}, {"dy", &dy}, {"dx", &dx}});
  require_all(kOp, ops::DType::fp32, shape.c,
              {{"gamma", &gamma}, {"dgamma", &dgamma}, {"dbeta", &dbeta}});
}

class CudaConv2d final : public ops::Conv2dOp {
 public:
  CudaConv2d(device::CudaContext& context, const ops::ConvGeometry& g, int batch, ops::DType dtype)
      : m_conv(context, g, batch, dtype) {}
  void forward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& y) override {
    constexpr const char* kOp = "CudaBackend conv2d forward";
    require_all(kOp, m_conv.dtype(), inputs(), {{"x", &x}});
    require_all(kOp, m_conv.dtype(), weights(), {{"w", &w}});
    require_all(kOp, m_conv.dtype(), outputs(), {{"y", &y}});
    m_conv.forward(x.data(), w.data(), y.data());
  }
  void backward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& dy,
                const ops::Tensor& dw, const ops::Tensor& dx) override {
    constexpr const char* kOp = "CudaBackend conv2d backward";
    require_all(kOp, m_conv.dtype(), inputs(), {{"x", &x}});
    require_all(kOp, m_conv.dtype(), weights(), {{"w", &w}, {"dw", &dw}});
    require_all(kOp, m_conv.dtype(), outputs(), {{"dy", &dy}});
    if (dx.defined()) require_all(kOp, m_conv.dtype(), inputs(), {{"dx", &dx}});
    m_conv.backward(x.data(), w.data(), dy.data(), dw.data(), dx.defined() ? dx.data() : nullptr);
  }

 private:
  std::int64_t inputs() const { return static_cast<std::int64_t>(m_conv.input_floats()); }
  std::int64_t weights() const { return static_cast<std::int64_t>(m_conv.weight_floats()); }
  std::int64_t outputs() const { return static_cast<std::int64_t>(m_conv.output_floats()); }
  CudnnConv2d m_conv;
};

/// Batch normalisation of the local batch through cuDNN (spatial mode, batch statistics kept
/// for backward; no running averages: the benchmark never evaluates). cuDNN does not document
/// an in-place backward, so a backward with dx over dy (which the op layer allows) runs the
/// batch-norm kernels instead, which allow it, on cuDNN's saved mean and inverse deviation.
class CudnnBatchNorm final : public ops::BatchNormOp {
 public:
  CudnnBatchNorm(CudaBackend& backend, int batch, int channels, int h, int w, float eps,
                 ops::DType dtype)
      : m_backend(backend),
        m_shape{ActivationLayout::nchw, batch, channels, h, w},
        m_dtype(dtype),
        m_x(tensor_desc("batch_norm", dtype, batch, channels, h, w)),
        m_param(make_param_desc()),
        m_eps(eps),
        m_mean(std::size_t(channels)),
        m_invvar(std::size_t(channels)),
        m_sums(2 * std::size_t(channels)),
        m_workspace(batch_norm_workspace_bytes(m_shape)) {}
  void forward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& beta,
               const ops::Tensor& y) override {
    require_batch_norm_forward(m_shape, m_dtype, x, gamma, beta, y);
    const float one = 1.0f, zero = 0.0f;
    SCALETUNE_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
        cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, m_x.get(), x.data(), m_x.get(), y.data(),
        m_param.get(), gamma.data(), beta.data(), 1.0, nullptr, nullptr, m_eps, m_mean.data(),
        m_invvar.data()));
  }
  void backward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& dy,
                const ops::Tensor& dgamma, const ops::Tensor& dbeta,
                const ops::Tensor& dx) override {
    require_batch_norm_backward(m_shape, m_dtype, x, gamma, dy, dgamma, dbeta, dx);
    if (dx.data() == dy.data()) return backward_in_place(x, gamma, dy, dgamma, dbeta);
    const float one = 1.0f, zero = 0.0f;
    SCALETUNE_CUDNN_CHECK(cudnnBatchNormalizationBackward(
        cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, m_x.get(), x.data(), m_x.get(),
        dy.data(), m_x.get(), dx.data(), m_param.get(), gamma.data(), dgamma.data(), dbeta.data(),
        m_eps, m_mean.data(), m_invvar.data()));
  }
  std::int64_t state_bytes() const override {
    return static_cast<std::int64_t>(m_mean.size_bytes() + m_invvar.size_bytes() +
                                     m_sums.size_bytes() + m_workspace.size_bytes());
  }

 private:
  cudnnHandle_t cudnn() const { return m_backend.context().cudnn(); }
  TensorDesc make_param_desc() const {
    cudnnTensorDescriptor_t raw = nullptr;
    SCALETUNE_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
    TensorDesc desc(raw);
    SCALETUNE_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(raw, m_x.get(), CUDNN_BATCHNORM_SPATIAL));
    return desc;
  }
  /// backward with dx = dy: cuDNN's saved inverse variance is 1 / sqrt(var + eps), the kernels'
  /// invstd.
  void backward_in_place(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& dy,
                         const ops::Tensor& dgamma, const ops::Tensor& dbeta) {
    const cudaStream_t stream = m_backend.stream();
    batch_norm_backward_sums(stream, m_shape, m_dtype, x.data(), dy.data(), m_mean.data(),
                             m_invvar.data(), m_workspace.data(), m_workspace.size_bytes(),
                             m_sums.data(), dgamma.as<float>(), dbeta.as<float>());
    batch_norm_backward_dx(stream, m_shape, m_dtype, x.data(), dy.data(), gamma.as<float>(),
                           m_mean.data(), m_invvar.data(), m_sums.data(),
                           m_shape.n * m_shape.area(), m_workspace.data(), m_workspace.size_bytes(),
                           dy.data());
  }
  CudaBackend& m_backend;
  ActivationShape m_shape;
  ops::DType m_dtype;
  TensorDesc m_x;
  TensorDesc m_param;
  double m_eps;
  device::DeviceBuffer<float> m_mean, m_invvar;
  device::DeviceBuffer<float> m_sums;           ///< the in-place backward's per-channel sums [2C]
  device::DeviceBuffer<std::byte> m_workspace;  ///< the in-place backward's kernel workspace
};

/// Batch normalisation over the global batch (PyTorch's SyncBatchNorm): per-channel sums of the
/// local batch, all-reduced over `sync` (device memory: NCCL) between the kernels that form
/// them and the kernels that use them.
class SyncBatchNorm final : public ops::BatchNormOp {
 public:
  SyncBatchNorm(CudaBackend& backend, int batch, int channels, int h, int w, float eps,
                core::Communicator& sync, ops::DType dtype)
      : m_backend(backend),
        m_sync(sync),
        m_shape{ActivationLayout::nchw, batch, channels, h, w},
        m_dtype(dtype),
        m_eps(eps),
        m_sums(2 * std::size_t(channels) + 1),
        m_mean(std::size_t(channels)),
        m_invstd(std::size_t(channels)),
        m_workspace(batch_norm_workspace_bytes(m_shape)) {
    if (sync.memory_space() != core::MemorySpace::device)
      throw std::invalid_argument(
          "synchronised batch norm on CUDA needs a communicator on device memory (NCCL)");
  }
  void forward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& beta,
               const ops::Tensor& y) override {
    require_batch_norm_forward(m_shape, m_dtype, x, gamma, beta, y);
    batch_norm_forward_sums(stream(), m_shape, m_dtype, x.data(), m_workspace.data(),
                            m_workspace.size_bytes(), m_sums.data());
    all_reduce_sums();
    batch_norm_statistics(stream(), m_shape.c, m_sums.data(), global_count(), m_eps, m_mean.data(),
                          m_invstd.data());
    batch_norm_forward_normalize(stream(), m_shape, m_dtype, x.data(), gamma.as<float>(),
                                 beta.as<float>(), m_mean.data(), m_invstd.data(), y.data());
  }
  void backward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& dy,
                const ops::Tensor& dgamma, const ops::Tensor& dbeta,
                const ops::Tensor& dx) override {
    require_batch_norm_backward(m_shape, m_dtype, x, gamma, dy, dgamma, dbeta, dx);
    batch_norm_backward_sums(stream(), m_shape, m_dtype, x.data(), dy.data(), m_mean.data(),
                             m_invstd.data(), m_workspace.data(), m_workspace.size_bytes(),
                             m_sums.data(), dgamma.as<float>(), dbeta.as<float>());
    all_reduce_sums();
    batch_norm_backward_dx(stream(), m_shape, m_dtype, x.data(), dy.data(), gamma.as<float>(),
                           m_mean.data(), m_invstd.data(), m_sums.data(), global_count(),
                           m_workspace.data(), m_workspace.size_bytes(), dx.data());
  }
  std::int64_t state_bytes() const override {
    return static_cast<std::int64_t>(m_sums.size_bytes() + m_mean.size_bytes() +
                                     m_invstd.size_bytes() + m_workspace.size_bytes());
  }

 private:
  cudaStream_t stream() const { return m_backend.stream(); }
  /// Elements per channel over the group: N H W times the group size (equal batches).
  std::int64_t global_count() const { return m_shape.n * m_shape.area() * m_sync.size(); }
  void all_reduce_sums() {
    m_sync.all_reduce(m_sums.data(), m_sums.data(), 2 * std::size_t(m_shape.c), core::DType::fp32,
                      core::ReduceOp::sum);
  }
  CudaBackend& m_backend;
  core::Communicator& m_sync;
  ActivationShape m_shape;
  ops::DType m_dtype;
  float m_eps;
  device::DeviceBuffer<float> m_sums, m_mean, m_invstd;
  device::DeviceBuffer<std::byte> m_workspace;
};

/// Max pooling through cuDNN (CUDNN_POOLING_MAX_DETERMINISTIC); backward reads the latest
/// forward's input and output again (views of them are kept, not copies: MaxPoolOp::backward
/// needs them unchanged).
class CudnnMaxPool final : public ops::MaxPoolOp {
 public:
  CudnnMaxPool(CudaBackend& backend, int kernel, int stride, int pad, int batch, int channels,
               int h, int w, ops::DType dtype)
      : m_backend(backend),
        m_dtype(dtype),
        m_inputs(std::int64_t{batch} * channels * h * w),
        m_outputs(std::int64_t{batch} * channels * ((h + 2 * pad - kernel) / stride + 1) *
                  ((w + 2 * pad - kernel) / stride + 1)),
        m_pool(make_pool(kernel, stride, pad)),
        m_x(tensor_desc("max_pool", dtype, batch, channels, h, w)),
        m_y(tensor_desc("max_pool", dtype, batch, channels, (h + 2 * pad - kernel) / stride + 1,
                        (w + 2 * pad - kernel) / stride + 1)) {}
  void forward(const ops::Tensor& x, const ops::Tensor& y) override {
    require_all("CudaBackend max_pool forward", m_dtype, m_inputs, {{"x", &x}});
    require_all("CudaBackend max_pool forward", m_dtype, m_outputs, {{"y", &y}});
    const float one = 1.0f, zero = 0.0f;
    SCALETUNE_CUDNN_CHECK(cudnnPoolingForward(cudnn(), m_pool.get(), &one, m_x.get(), x.data(),
                                              &zero, m_y.get(), y.data()));
    m_last_x = x;
    m_last_y = y;
  }
  void backward(const ops::Tensor& dy, const ops::Tensor& dx) override {
    if (!m_last_x.defined()) throw std::logic_error("CudnnMaxPool::backward before any forward");
    require_all("CudaBackend max_pool backward", m_dtype, m_outputs, {{"dy", &dy}});
    require_all("CudaBackend max_pool backward", m_dtype, m_inputs, {{"dx", &dx}});
    const float one = 1.0f, zero = 0.0f;
    SCALETUNE_CUDNN_CHECK(cudnnPoolingBackward(cudnn(), m_pool.get(), &one, m_y.get(),
                                               m_last_y.data(), m_y.get(), dy.data(), m_x.get(),
                                               m_last_x.data(), &zero, m_x.get(), dx.data()));
  }
  std::int64_t state_bytes() const override { return 0; }

 private:
  cudnnHandle_t cudnn() const { return m_backend.context().cudnn(); }
  static PoolingDesc make_pool(int kernel, int stride, int pad) {
    cudnnPoolingDescriptor_t raw = nullptr;
    SCALETUNE_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&raw));
    PoolingDesc desc(raw);
    SCALETUNE_CUDNN_CHECK(cudnnSetPooling2dDescriptor(raw, CUDNN_POOLING_MAX_DETERMINISTIC,
                                                      CUDNN_NOT_PROPAGATE_NAN, kernel, kernel, pad,
                                                      pad, stride, stride));
    return desc;
  }
  CudaBackend& m_backend;
  ops::DType m_dtype;
  std::int64_t m_inputs, m_outputs;  ///< elements of x and y
  PoolingDesc m_pool;
  TensorDesc m_x, m_y;
  ops::Tensor m_last_x, m_last_y;
};

/// Causal attention as strided-batched GEMMs over every (sample, head) and the causal softmax
/// kernels; probabilities and their gradient [B heads, S, S] kept in the activation type.
class CudaAttention final : public ops::AttentionOp {
 public:
  CudaAttention(CudaBackend& backend, int max_batch, int heads, int seq_len, int head_dim,
                ops::DType dtype)
      : m_backend(backend),
        m_heads(heads),
        m_seq(seq_len),
        m_head_dim(head_dim),
        m_scale(static_cast<float>(1.0 / std::sqrt(double(head_dim)))),
        m_dtype(dtype),
        m_probs(backend.allocate(bytes_of(max_batch), "attention probabilities")),
        m_dprobs(backend.allocate(bytes_of(max_batch), "attention probability gradients")) {}
  void forward(const ops::Tensor& q, const ops::Tensor& k, const ops::Tensor& v,
               const ops::Tensor& out) override {
    require_all("CudaBackend attention forward", m_dtype, elements(q),
                {{"q", &q}, {"k", &k}, {"v", &v}, {"out", &out}});
    const std::int64_t r = q.dim(0) * m_heads;
    const ops::Tensor p = probs(m_probs, r);
    m_backend.gemm(false, true, m_scale, as3(q), as3(k), 0.0f, p);
    causal_softmax_forward(m_backend.stream(), m_dtype, r, m_seq, p.data(), p.data());
    m_backend.gemm(false, false, 1.0f, p, as3(v), 0.0f, as3(out));
  }
  void backward(const ops::Tensor& q, const ops::Tensor& k, const ops::Tensor& v,
                const ops::Tensor& dout, const ops::Tensor& dq, const ops::Tensor& dk,
                const ops::Tensor& dv) override {
    require_all(
        "CudaBackend attention backward", m_dtype, elements(q),
        {{"q", &q}, {"k", &k}, {"v", &v}, {"dout", &dout}, {"dq", &dq}, {"dk", &dk}, {"dv", &dv}});
    const std::int64_t r = q.dim(0) * m_heads;
    const ops::Tensor p = probs(m_probs, r), dp = probs(m_dprobs, r);
    m_backend.gemm(true, false, 1.0f, p, as3(dout), 0.0f, as3(dv));
    m_backend.gemm(false, true, 1.0f, as3(dout), as3(v), 0.0f, dp);
    causal_softmax_backward(m_backend.stream(), m_dtype, r, m_seq, p.data(), dp.data(), dp.data());
    m_backend.gemm(false, false, m_scale, dp, as3(k), 0.0f, as3(dq));
    m_backend.gemm(true, false, m_scale, dp, as3(q), 0.0f, as3(dk));
  }
  std::int64_t workspace_bytes() const override {
    return static_cast<std::int64_t>(m_probs.bytes() + m_dprobs.bytes());
  }

 private:
  /// Elements of [B, heads, S, Dh] for q's batch B; throws std::invalid_argument unless q is
  /// [B, heads, S, Dh] of the op's heads and sequence.
  std::int64_t elements(const ops::Tensor& q) const {
    if (q.rank() != 4 || q.dim(1) != m_heads || q.dim(2) != m_seq || q.dim(3) != m_head_dim)
      throw std::invalid_argument("CudaBackend attention: q is " + q.describe() +
                                  ", expected [B, " + std::to_string(m_heads) + ", " +
                                  std::to_string(m_seq) + ", " + std::to_string(m_head_dim) + "]");
    return q.numel();
  }
  std::size_t bytes_of(int batch) const {
    return std::size_t(batch) * m_heads * std::size_t(m_seq) * m_seq * core::dtype_bytes(m_dtype);
  }
  /// [B, heads, S, Dh] seen as [B heads, S, Dh].
  static ops::Tensor as3(const ops::Tensor& t) {
    return t.reshaped({t.dim(0) * t.dim(1), t.dim(2), t.dim(3)});
  }
  ops::Tensor probs(const ops::Buffer& buffer, std::int64_t r) const {
    return buffer.tensor(m_dtype, {r, m_seq, m_seq});
  }
  CudaBackend& m_backend;
  int m_heads;
  int m_seq;
  int m_head_dim;
  float m_scale;
  ops::DType m_dtype;
  ops::Buffer m_probs, m_dprobs;
};

/// Embedding bag forward and backward by sort (CUB) with the sparse gradient and the sort's
/// workspace owned by the op; the unique-row count stays on the device for the optimizers and
/// is read once per backward. Bad row ids and offsets are reported in the backend's
/// bad_label_flag() (zeroed when the backend is made), as the sparse optimizers' are.
class CudaEmbeddingBag final : public ops::EmbeddingBagOp {
 public:
  CudaEmbeddingBag(CudaBackend& backend, std::int64_t rows, int dim, std::int64_t max_nnz,
                   ops::Pooling mode)
      : m_backend(backend),
        m_rows(rows),
        m_dim(dim),
        m_mode(mode),
        m_max_unique(embedding_bag_backward_max_unique(max_nnz, rows)),
        m_workspace(embedding_bag_backward_workspace_bytes(max_nnz, rows, dim)),
        m_unique_rows(std::size_t(m_max_unique)),
        m_values(std::size_t(m_max_unique) * std::size_t(dim)),
        m_count(1) {}
  void forward(const ops::Tensor& table, const ops::Tensor& indices, const ops::Tensor& offsets,
               const ops::Tensor& out) override {
    constexpr const char* kOp = "CudaBackend embedding_bag forward";
    require_elements(kOp, "table", table, table.dtype(), m_rows * m_dim);
    require_elements(kOp, "out", out, ops::DType::fp32, (offsets.numel() - 1) * m_dim);
    embedding_bag_forward(m_backend.stream(), offsets.numel() - 1, indices.numel(), m_rows, m_dim,
                          table.dtype(), table.data(), indices.as<std::int64_t>(),
                          offsets.as<std::int64_t>(), m_mode, out.as<float>(), ops::DType::bf16,
                          nullptr, m_backend.bad_label_flag());
  }
  ops::SparseRows backward(const ops::Tensor& grad_out, const ops::Tensor& indices,
                           const ops::Tensor& offsets) override {
    require_elements("CudaBackend embedding_bag backward", "grad_out", grad_out, ops::DType::fp32,
                     (offsets.numel() - 1) * m_dim);
    embedding_bag_backward(m_backend.stream(), offsets.numel() - 1, indices.numel(), m_rows, m_dim,
                           grad_out.as<float>(), indices.as<std::int64_t>(),
                           offsets.as<std::int64_t>(), m_mode, m_workspace.data(),
                           m_workspace.size_bytes(), m_unique_rows.data(), m_values.data(),
                           m_count.data(), m_backend.bad_label_flag());
    const std::int64_t count = read_num_unique(m_backend.stream(), m_count.data());
    return {.rows = ops::Tensor(m_unique_rows.data(), ops::DType::int64, {count}),
            .values = ops::Tensor(m_values.data(), ops::DType::fp32, {count, m_dim}),
            .count = count,
            .count_on_device = ops::Tensor(m_count.data(), ops::DType::int32, {1})};
  }
  std::int64_t workspace_bytes() const override {
    return static_cast<std::int64_t>(m_workspace.size_bytes() + m_unique_rows.size_bytes() +
                                     m_values.size_bytes());
  }

 private:
  CudaBackend& m_backend;
  std::int64_t m_rows;
  std::int64_t m_dim;
  ops::Pooling m_mode;
  std::int64_t m_max_unique;
  device::DeviceBuffer<std::byte> m_workspace;
  device::DeviceBuffer<std::int64_t> m_unique_rows;
  device::DeviceBuffer<float> m_values;
  device::DeviceBuffer<int> m_count;
};

/// Throws std::invalid_argument unless grad holds `count` row ids (int64) and [count, D] fp32
/// values for a table [R, D].
void require_sparse_rows(const char* op, const ops::Tensor& table, const ops::SparseRows& grad) {
  require_elements(op, "rows", grad.rows, ops::DType::int64, grad.count);
  require_elements(op, "values", grad.values, ops::DType::fp32, grad.count * table.dim(1));
}

/// The device count of a sparse gradient: its own, or `scratch` (one device int) set to it.
const int* device_count(const ops::SparseRows& grad, int* scratch, cudaStream_t stream) {
  if (grad.count_on_device.defined()) return grad.count_on_device.as<std::int32_t>();
  const int count = static_cast<int>(grad.count);
  SCALETUNE_CUDA_CHECK(
      cudaMemcpyAsync(scratch, &count, sizeof(int), cudaMemcpyHostToDevice, stream));
  SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream));  // `count` goes out of scope
  return scratch;
}

}  // namespace

std::unique_ptr<ops::Conv2dOp> CudaBackend::make_conv2d(const ops::ConvGeometry& g, int batch,
                                                        ops::DType dtype) {
  return std::make_unique<CudaConv2d>(m_context, g, batch, dtype);
}

std::unique_ptr<ops::BatchNormOp> CudaBackend::make_batch_norm(int batch, int channels, int h,
                                                               int w, float eps,
                                                               core::Communicator* sync,
                                                               ops::DType dtype) {
  if (sync != nullptr)
    return std::make_unique<SyncBatchNorm>(*this, batch, channels, h, w, eps, *sync, dtype);
  return std::make_unique<CudnnBatchNorm>(*this, batch, channels, h, w, eps, dtype);
}

std::unique_ptr<ops::MaxPoolOp> CudaBackend::make_max_pool(int kernel, int stride, int pad,
                                                           int batch, int channels, int h, int w,
                                                           ops::DType dtype) {
  return std::make_unique<CudnnMaxPool>(*this, kernel, stride, pad, batch, channels, h, w, dtype);
}

void CudaBackend::global_avg_pool_forward(const ops::Tensor& x, const ops::Tensor& y) {
  require_elements("CudaBackend::global_avg_pool_forward", "y", y, x.dtype(), x.dim(0) * x.dim(1));
  cuda::global_avg_pool_forward(stream(), nchw(x), x.dtype(), x.data(), y.data());
}

void CudaBackend::global_avg_pool_backward(const ops::Tensor& dy, const ops::Tensor& dx) {
  require_elements("CudaBackend::global_avg_pool_backward", "dy", dy, dx.dtype(),
                   dx.dim(0) * dx.dim(1));
  cuda::global_avg_pool_backward(stream(), nchw(dx), dx.dtype(), dy.data(), dx.data());
}

std::unique_ptr<ops::AttentionOp> CudaBackend::make_attention(int max_batch, int heads, int seq_len,
                                                              int head_dim, ops::DType dtype) {
  return std::make_unique<CudaAttention>(*this, max_batch, heads, seq_len, head_dim, dtype);
}

std::unique_ptr<ops::EmbeddingBagOp> CudaBackend::make_embedding_bag(std::int64_t rows, int dim,
                                                                     int, std::int64_t max_nnz,
                                                                     ops::Pooling mode) {
  return std::make_unique<CudaEmbeddingBag>(*this, rows, dim, max_nnz, mode);
}

void CudaBackend::sparse_sgd(const ops::Tensor& table, const ops::SparseRows& grad, float lr) {
  require_sparse_rows("CudaBackend::sparse_sgd", table, grad);
  sparse_sgd_step(stream(), table.dim(0), table.dim(1), grad.count, table.dtype(), table.data(),
                  grad.rows.as<std::int64_t>(), grad.values.as<float>(),
                  device_count(grad, m_sparse_count.data(), stream()), lr, 1.0f, nullptr,
                  bad_label_flag());
}

void CudaBackend::sparse_rowwise_adagrad(const ops::Tensor& table, const ops::Tensor& state,
                                         const ops::SparseRows& grad,
                                         const ops::RowwiseAdagradOptions& opt) {
  require_sparse_rows("CudaBackend::sparse_rowwise_adagrad", table, grad);
  require_elements("CudaBackend::sparse_rowwise_adagrad", "state", state, ops::DType::fp32,
                   table.dim(0));
  sparse_rowwise_adagrad_step(stream(), table.dim(0), table.dim(1), grad.count, table.dtype(),
                              table.data(), state.as<float>(), grad.rows.as<std::int64_t>(),
                              grad.values.as<float>(),
                              device_count(grad, m_sparse_count.data(), stream()), opt.lr, opt.eps,
                              1.0f, nullptr, bad_label_flag());
}

}  // namespace scaletune::kernels::cuda
