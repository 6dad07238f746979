#pragma once
// The describing backend of the op layer: every op records itself (kind, shape fields, element
// type, FLOPs, bytes: op_costs.hpp) into the rank's trace::Recorder and computes nothing.
// Tensors it allocates hold no memory: each allocation gets its own range of addresses of
// described memory (core::is_described: never mapped, so views and offsets stay distinct, the
// communicators of a described step move nothing there, and anything that reads them faults at
// once). What is uploaded to integer tensors (embedding indices and offsets, labels, tokens) is
// kept, so an embedding bag's description knows its lookups' reuse and distinct rows exactly.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/trace/step_trace.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels::describe {

/// Describes the ops a backend for devices of `target` would run: computes_in() and
/// memory_space() answer as that backend (host: fp32 only, host memory; cuda: fp32, fp16, bf16,
/// device memory), so a workload makes the same choices. Downloads read zeros, except what was
/// uploaded to integer tensors. Synchronised batch norm issues the collectives the target's
/// batch norm issues. The recorder must outlive the backend.
class DescribingBackend final : public ops::Backend {
 public:
  DescribingBackend(core::DeviceKind target, trace::Recorder& recorder);
  ~DescribingBackend() override;

  ops::BackendKind kind() const override { return ops::BackendKind::describe; }
  /// The kind of device described.
  core::DeviceKind target() const { return m_target; }
  core::MemorySpace memory_space() const override;
  bool computes_in(ops::DType dtype) const override;
  ops::Buffer allocate(std::size_t bytes, const std::string& label) override;
  void upload(const ops::Tensor& dst, std::span<const std::byte> host) override;
  void download(const ops::Tensor& src, std::span<std::byte> host) override;
  std::int64_t workspace_bytes() const override { return 0; }

  /// The int64 values last uploaded to exactly `t` (same address and element count); empty
  /// when none were.
  std::span<const std::int64_t> uploaded_int64(const ops::Tensor& t) const;
  /// Records `op` (the describing layer ops record through this).
  void record(trace::ComputeOp op) { m_recorder.add(std::move(op)); }

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

 private:
  void elementwise(const char* op, const ops::Tensor& x);

  core::DeviceKind m_target;
  trace::Recorder& m_recorder;
  std::uintptr_t m_next_address;
  /// int64 and int32 uploads by start address: (element count, bytes)
  std::map<std::uintptr_t, std::pair<std::int64_t, std::vector<std::byte>>> m_uploads;
};

}  // namespace scaletune::kernels::describe
