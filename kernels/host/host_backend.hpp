#pragma once
// The op layer on the host: every ops::Backend op runs the host op of kernels/host on host
// memory (Kokkos Serial, BLAS for GEMM with one thread per rank). One rank stands for one
// device.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/ops/backend.hpp"

namespace scaletune::kernels {

/// ops::Backend on host memory. Activations, GEMMs and convolutions are fp32 only
/// (computes_in(fp32)); embedding tables may be stored in fp16 or bf16 (computed in fp32).
/// Every op completes before it returns. allocate() gives zero-filled memory: 2 MiB and more
/// from a mapping advised for transparent huge pages (HugePageBuffer: a random row of a large
/// embedding table then rarely misses the TLB), less from the heap, 64-byte aligned. Ops throw
/// std::invalid_argument for tensors the host ops refuse (shape, type; the host op's message).
/// Its convolutions share one im2col workspace (the largest any of them needs); the backend
/// must outlive the ops it makes.
class HostBackend final : public ops::Backend {
 public:
  ops::BackendKind kind() const override { return ops::BackendKind::host; }
  core::MemorySpace memory_space() const override { return core::MemorySpace::host; }
  bool computes_in(ops::DType dtype) const override { return dtype == ops::DType::fp32; }
  ops::Buffer allocate(std::size_t bytes, const std::string& label) override;
  void upload(const ops::Tensor& dst, std::span<const std::byte> host) override;
  void download(const ops::Tensor& src, std::span<std::byte> host) override;
  /// The one im2col workspace its convolutions share.
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
                           const ops::Tensor& mean, const ops::Tensor& rstd, const ops::Tensor& dx,
                           const ops::Tensor& dgamma, const ops::Tensor& dbeta) override;
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

  /// The shared convolution workspace, at least `floats` floats (grows when smaller: call
  /// while making ops, not in a step). Stays valid until it grows again.
  float* workspace(std::size_t floats);

 private:
  std::vector<float> m_workspace;
};

}  // namespace scaletune::kernels
