#pragma once
// The op layer on one rank's GPU: every ops::Backend op runs on the CUDA context's compute
// stream through cuBLAS (GEMMs, the fully-connected layers, attention and interaction
// products), cuDNN (convolution, batch normalisation, max pooling) and the small kernels of
// kernels/cuda for the rest.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "harness/device/cuda_context.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels::cuda {

/// ops::Backend on the device of a device::CudaContext (which must outlive it and every op and
/// buffer it makes). Memory is device memory (cudaMalloc, zero-filled on the compute stream);
/// activations, GEMMs and convolutions run in fp32, and in fp16 and bf16 where the device has
/// them (bf16 from compute capability 8.0), always accumulating in fp32: fp32 GEMMs use fp32
/// FMA (no TF32 rounding), 16-bit ones the tensor cores. Ops are queued on the compute stream
/// and return before they complete; upload and download synchronise. cuBLAS and cuDNN use the
/// context's one workspace; the backend's own kernels (losses, the interaction's Gram
/// matrices) use a scratch buffer of the backend, grown by the first call that needs more (a
/// warm-up step, never a timed one), so library calls never clobber it. Errors: CudaError (and
/// StickyCudaError) from the failing CUDA, cuBLAS or cuDNN call, std::invalid_argument for a
/// tensor an op cannot take, DeviceOutOfMemory (a std::bad_alloc) when memory runs out.
class CudaBackend final : public ops::Backend {
 public:
  explicit CudaBackend(device::CudaContext& context);

  ops::BackendKind kind() const override { return ops::BackendKind::cuda; }
  core::MemorySpace memory_space() const override { return core::MemorySpace::device; }
  /// fp32 and fp16 always; bf16 when the device's compute capability is at least 8.0.
  bool computes_in(ops::DType dtype) const override;
  ops::Buffer allocate(std::size_t bytes, const std::string& label) override;
  void upload(const ops::Tensor& dst, std::span<const std::byte> host) override;
  void download(const ops::Tensor& src, std::span<std::byte> host) override;
  /// The context's workspace and the backend's scratch.
  std::int64_t workspace_bytes() const override;

  void fill(const ops::Tensor& x, float value) override;
  void copy(const ops::Tensor& src, const ops::Tensor& dst) override;
  void add(const ops::Tensor& x, const ops::Tensor& y) override;
  void scale(const ops::Tensor& x, float alpha) override;
  void copy_columns(const ops::Tensor& src, std::int64_t src_col, const ops::Tensor& dst,
                    std::int64_t dst_col, std::int64_t cols, bool accumulate) override;
  void relu_forward(const ops::Tensor& x, const ops::Tensor& y) override;
  void relu_backward(const ops::Tensor& y, const ops::Tensor& dy, const ops::Tensor& dx) override;
  void gelu_forward(const ops::Tensor& x, const ops::Tensor& y) override;
  void gelu_backward(const ops::Tensor& x, const ops::Tensor& dy, const ops::Tensor& dx) override;
  void dropout_forward(const ops::Tensor& x, const ops::DropoutMask& mask,
                       const ops::Tensor& y) override;
  void dropout_backward(const ops::Tensor& dy, const ops::DropoutMask& mask,
                        const ops::Tensor& dx) override;

  void gemm(bool trans_a, bool trans_b, float alpha, const ops::Tensor& a, const ops::Tensor& b,
            float beta, const ops::Tensor& c) override;
  void linear_forward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& b,
                      const ops::Tensor& y) override;
  void linear_backward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& dy,
                       const ops::Tensor& dw, const ops::Tensor& db, const ops::Tensor& dx,
                       ops::GradMode mode) override;
  void layer_norm_forward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& beta,
                          const ops::Tensor& y, const ops::Tensor& mean, const ops::Tensor& rstd,
                          float eps) override;
  void layer_norm_backward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& dy,
                           const ops::Tensor& mean, const ops::Tensor& rstd,
                           const ops::Tensor& dx, const ops::Tensor& dgamma,
                           const ops::Tensor& dbeta) override;
  void heads_from_rows(const ops::Tensor& rows, std::int64_t col,
                       const ops::Tensor& heads) override;
  void rows_from_heads(const ops::Tensor& heads, const ops::Tensor& rows,
                       std::int64_t col) override;
  void token_embedding_forward(const ops::Tensor& wte, const ops::Tensor& wpe,
                               const ops::Tensor& tokens, const ops::Tensor& out) override;
  void token_embedding_backward(const ops::Tensor& dout, const ops::Tensor& tokens,
                                const ops::Tensor& dwte, const ops::Tensor& dwpe) override;

  std::unique_ptr<ops::Conv2dOp> make_conv2d(const ops::ConvGeometry& g, int batch,
                                             ops::DType dtype) override;
  std::unique_ptr<ops::BatchNormOp> make_batch_norm(int batch, int channels, int h, int w,
                                                    float eps, core::Communicator* sync,
                                                    ops::DType dtype) override;
  std::unique_ptr<ops::MaxPoolOp> make_max_pool(int kernel, int stride, int pad, int batch,
                                                int channels, int h, int w,
                                                ops::DType dtype) override;
  void global_avg_pool_forward(const ops::Tensor& x, const ops::Tensor& y) override;
  void global_avg_pool_backward(const ops::Tensor& dy, const ops::Tensor& dx) override;
  std::unique_ptr<ops::AttentionOp> make_attention(int max_batch, int heads, int seq_len,
                                                   int head_dim, ops::DType dtype) override;

  void softmax_cross_entropy(const ops::Tensor& logits, const ops::Tensor& labels, float scale,
                             float grad_scale, const ops::Tensor& dlogits,
                             const ops::Tensor& loss) override;
  void bce_with_logits(const ops::Tensor& logits, const ops::Tensor& labels, float scale,
                       float grad_scale, const ops::Tensor& dlogits,
                       const ops::Tensor& loss) override;

  std::unique_ptr<ops::EmbeddingBagOp> make_embedding_bag(std::int64_t rows, int dim, int batch,
                                                          std::int64_t max_nnz,
                                                          ops::Pooling mode) override;
  void sparse_sgd(const ops::Tensor& table, const ops::SparseRows& grad, float lr) override;
  void sparse_rowwise_adagrad(const ops::Tensor& table, const ops::Tensor& state,
                              const ops::SparseRows& grad,
                              const ops::RowwiseAdagradOptions& opt) override;
  void interaction_forward(const ops::Tensor& z, const ops::Tensor& out) override;
  void interaction_backward(const ops::Tensor& z, const ops::Tensor& dout,
                            const ops::Tensor& dz) override;

  void sgd_momentum(const ops::Tensor& params, const ops::Tensor& grads,
                    const ops::Tensor& velocity, const ops::SgdOptions& opt,
                    const ops::MasterUpdate& update) override;
  void adam(const ops::Tensor& params, const ops::Tensor& grads, const ops::Tensor& m,
            const ops::Tensor& v, int step, const ops::AdamOptions& opt,
            const ops::MasterUpdate& update) override;
  void check_nonfinite(const ops::Tensor& x, const ops::Tensor& flag) override;

  /// The context the ops run on.
  device::CudaContext& context() const { return m_context; }
  /// The compute stream.
  cudaStream_t stream() const { return m_context.compute_stream(); }
  /// The backend's kernel scratch, at least `bytes` (grows, synchronising the stream, when
  /// smaller; the pointer then changes).
  void* scratch(std::size_t bytes);
  /// A device int the loss and embedding kernels report bad input in (a label or row id out of
  /// range; read by tests, never by a step).
  int* bad_label_flag() { return m_bad_label.data(); }

 private:
  device::CudaContext& m_context;
  device::DeviceBuffer<int> m_bad_label;
  device::DeviceBuffer<int> m_sparse_count;  ///< the count of a sparse gradient made on the host
  device::DeviceBuffer<std::byte> m_scratch;
};

}  // namespace scaletune::kernels::cuda
