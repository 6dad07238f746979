#pragma once
// The op layer's seam: every op a workload's step runs (GEMM, convolution, batch norm, pooling,
// activations, losses, embedding bags, the interaction, layer norm, attention, dropout, GELU,
// optimizer updates) and the memory it runs on, behind one interface. The host backend runs
// them on the CPU (kernels/host), the CUDA backend on the rank's GPU (kernels/cuda), and a
// describing backend may record them without running anything. A workload written against
// this interface is written once for all of them; its collectives go through
// core::Communicator, whose memory space must be the backend's.
//
// Conventions of every op: tensors are ops::Tensor views, row-major and contiguous, in the
// backend's memory; the element type of activations is the tensor's dtype (fp32 everywhere;
// fp16 and bf16 where the backend supports them: CUDA), math is fp32; parameters, gradients of
// parameters, optimizer state and normalisation statistics are fp32. Ops are queued in order on
// the backend's one compute stream and may return before they complete; upload and download
// are synchronous. A shape, type or argument an op cannot take throws std::invalid_argument
// naming the op, the tensor and what was expected; out of memory throws std::bad_alloc.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "harness/core/communicator.hpp"
#include "kernels/ops/buffer.hpp"
#include "kernels/ops/conv_geometry.hpp"
#include "kernels/ops/layer_ops.hpp"
#include "kernels/ops/op_options.hpp"
#include "kernels/ops/tensor.hpp"

namespace scaletune::ops {

/// Which implementation runs the ops.
enum class BackendKind { host, cuda, describe };

/// What an update of fp32 master parameters also does under mixed precision (all optional).
struct MasterUpdate {
  /// Factor applied to every gradient before the update (1 / loss scale under fp16 dynamic
  /// loss scaling; 1 otherwise).
  float unscale = 1.0f;
  /// int32 [1]: when non-zero the update is skipped entirely (gradients overflowed); "none":
  /// never skipped.
  Tensor found_nonfinite;
  /// A 16-bit copy [n] (fp16 or bf16) of the parameters the update writes after updating
  /// (the weights the next forward computes with); "none": no copy.
  Tensor copy;
};

/// A row-sparse gradient: `count` distinct rows, strictly increasing, with their gradients.
struct SparseRows {
  Tensor rows;             ///< int64 [count] row ids
  Tensor values;           ///< fp32 [count, D]
  std::int64_t count = 0;  ///< distinct rows
  /// int32 [1] holding count in the backend's memory where the backend keeps it there (the
  /// CUDA embedding bag's backward); "none" otherwise.
  Tensor count_on_device;
};

/// An embedding bag for one table shape and batch layout (Backend::make_embedding_bag).
/// Bags use the CSR layout of torch.nn.EmbeddingBag: indices int64 [nnz] of row ids back to
/// back, offsets int64 [B + 1] (offsets[0] = 0, non-decreasing, offsets[B] = nnz).
class EmbeddingBagOp {
 public:
  virtual ~EmbeddingBagOp() = default;
  /// out[b, :] = pooled rows of bag b of table [R, D] (fp32, fp16 or bf16 storage; summed in
  /// fp32 in index order); out fp32 [B, D] overwritten.
  virtual void forward(const Tensor& table, const Tensor& indices, const Tensor& offsets,
                       const Tensor& out) = 0;
  /// The row-sparse table gradient for grad_out fp32 [B, D] = d loss / d out of the same bags:
  /// every touched row once, summed over its occurrences (divided by the bag length for mean
  /// pooling), deterministic. The views stay valid until the next backward. The count is known
  /// on the host when this returns (CUDA: waits for it).
  virtual SparseRows backward(const Tensor& grad_out, const Tensor& indices,
                              const Tensor& offsets) = 0;
  /// Bytes the op holds (sparse gradient and sort workspace) at most.
  virtual std::int64_t workspace_bytes() const = 0;
};

/// The ops of one rank on one device (see the file comment for the conventions).
class Backend {
 public:
  virtual ~Backend() = default;

  // ---- identity and memory ----------------------------------------------------------------
  virtual BackendKind kind() const = 0;
  /// Where its tensors live: host or device memory (a communicator used with it must match).
  virtual core::MemorySpace memory_space() const = 0;
  /// Whether activations, GEMMs and convolutions can run in `dtype` (fp32 always; fp16 and
  /// bf16 on CUDA devices that have them).
  virtual bool computes_in(DType dtype) const = 0;
  /// `bytes` zero-filled bytes labelled `label` (for messages). Throws std::bad_alloc.
  virtual Buffer allocate(std::size_t bytes, const std::string& label) = 0;
  /// Copies host bytes (dst.bytes() of them) into dst. Synchronous.
  virtual void upload(const Tensor& dst, std::span<const std::byte> host) = 0;
  /// Copies src into host bytes (src.bytes() of them). Synchronous: waits for queued work.
  virtual void download(const Tensor& src, std::span<std::byte> host) = 0;
  /// Bytes of scratch the backend holds for its ops (one per rank: im2col columns, the
  /// cuBLAS/cuDNN workspace), grown while ops are made, never inside a step.
  virtual std::int64_t workspace_bytes() const = 0;

  // ---- element-wise (any shape; x, y of equal numel) --------------------------------------
  /// x = value.
  virtual void fill(const Tensor& x, float value) = 0;
  /// dst = src element-wise, converting the element type (round to nearest even).
  virtual void copy(const Tensor& src, const Tensor& dst) = 0;
  /// y += x.
  virtual void add(const Tensor& x, const Tensor& y) = 0;
  /// x *= alpha.
  virtual void scale(const Tensor& x, float alpha) = 0;
  /// dst[r, dst_col + c] = (or +=, with accumulate) src[r, src_col + c] for every row r and
  /// c < cols; src [rows, *] and dst [rows, *] are seen as matrices of their first extent by
  /// the rest (a block copy between column ranges, e.g. into the DLRM interaction's input).
  virtual void copy_columns(const Tensor& src, std::int64_t src_col, const Tensor& dst,
                            std::int64_t dst_col, std::int64_t cols, bool accumulate) = 0;
  /// y = max(x, 0) (Nair & Hinton 2010); y may alias x.
  virtual void relu_forward(const Tensor& x, const Tensor& y) = 0;
  /// dx = dy where y > 0, else 0 (y: the forward's output); dx may alias dy.
  virtual void relu_backward(const Tensor& y, const Tensor& dy, const Tensor& dx) = 0;
  /// y = GELU(x), tanh form (Hendrycks & Gimpel 2016, as GPT-2); [N, F].
  virtual void gelu_forward(const Tensor& x, const Tensor& y) = 0;
  /// dx = GELU'(x) dy; dx may alias dy.
  virtual void gelu_backward(const Tensor& x, const Tensor& dy, const Tensor& dx) = 0;
  /// y = x * keep / (1 - p) with the counter-based mask of DropoutMask; x, y [N, F]; in place
  /// allowed.
  virtual void dropout_forward(const Tensor& x, const DropoutMask& mask, const Tensor& y) = 0;
  /// dx = dy * keep / (1 - p), the forward's mask recomputed.
  virtual void dropout_backward(const Tensor& dy, const DropoutMask& mask, const Tensor& dx) = 0;

  // ---- dense ------------------------------------------------------------------------------
  /// c = alpha op(a) op(b) + beta c, op(a) [m, k] (a is [k, m] when trans_a), op(b) [k, n],
  /// c [m, n]; rank-3 tensors are batches of such products ([batch, rows, cols], one batch
  /// extent for all). a and b of the activation type, c of it or fp32; fp32 accumulation.
  virtual void gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b,
                    float beta, const Tensor& c) = 0;
  /// y [N, O] = x [N, F] w[O, F]^T + b [O]; w and b fp32 master or the activation type.
  virtual void linear_forward(const Tensor& x, const Tensor& w, const Tensor& b,
                              const Tensor& y) = 0;
  /// dw [O, F] = dy^T x, db [O] = sum_n dy (fp32; overwritten or added to per `mode`);
  /// dx [N, F] = dy w (overwritten; skipped when "none").
  virtual void linear_backward(const Tensor& x, const Tensor& w, const Tensor& dy,
                               const Tensor& dw, const Tensor& db, const Tensor& dx,
                               GradMode mode) = 0;
  /// Layer normalisation of x [N, F] over F (Ba et al. 2016, eq. 4): y = (x - mean) rstd gamma
  /// + beta, mean and rstd fp32 [N] kept for backward; gamma, beta fp32 [F]; y may alias x.
  virtual void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                  const Tensor& y, const Tensor& mean, const Tensor& rstd,
                                  float eps) = 0;
  /// dx (overwritten; may alias dy), dgamma and dbeta fp32 [F] (overwritten) of layer_norm.
  virtual void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy,
                                   const Tensor& mean, const Tensor& rstd, const Tensor& dx,
                                   const Tensor& dgamma, const Tensor& dbeta) = 0;
  /// heads[b, h, s, d] = rows[b S + s, col + h Dh + d]: one of q, k, v out of the token rows
  /// rows [B S, W] into heads [B, heads, S, Dh].
  virtual void heads_from_rows(const Tensor& rows, std::int64_t col, const Tensor& heads) = 0;
  /// The inverse: rows[b S + s, col + h Dh + d] = heads[b, h, s, d] (other columns untouched).
  virtual void rows_from_heads(const Tensor& heads, const Tensor& rows, std::int64_t col) = 0;
  /// out[t, :] = wte[tokens[t], :] + wpe[t mod S, :] for tokens int32 [T], wte [V, H] and
  /// wpe [S, H] fp32, out [T, H] (GPT-2's input embedding).
  virtual void token_embedding_forward(const Tensor& wte, const Tensor& wpe, const Tensor& tokens,
                                       const Tensor& out) = 0;
  /// dwte[tokens[t], :] += dout[t, :] and dwpe[t mod S, :] += dout[t, :] (fp32).
  virtual void token_embedding_backward(const Tensor& dout, const Tensor& tokens,
                                        const Tensor& dwte, const Tensor& dwpe) = 0;

  // ---- convolutional networks -------------------------------------------------------------
  /// A convolution of geometry g on batches of `batch` samples of element type `dtype`.
  virtual std::unique_ptr<Conv2dOp> make_conv2d(const ConvGeometry& g, int batch,
                                                DType dtype) = 0;
  /// Batch normalisation of `channels` channels with eps, statistics over the global batch
  /// when `sync` is not null (it must outlive the op), activations of `dtype` in batches shaped
  /// [batch, channels, h, w].
  virtual std::unique_ptr<BatchNormOp> make_batch_norm(int batch, int channels, int h, int w,
                                                       float eps, core::Communicator* sync,
                                                       DType dtype) = 0;
  /// Max pooling with the window kernel, stride, pad over inputs [batch, channels, h, w].
  virtual std::unique_ptr<MaxPoolOp> make_max_pool(int kernel, int stride, int pad, int batch,
                                                   int channels, int h, int w, DType dtype) = 0;
  /// y [N, C] = mean of x [N, C, H, W] over H and W.
  virtual void global_avg_pool_forward(const Tensor& x, const Tensor& y) = 0;
  /// dx [N, C, H, W] = dy [N, C] / (H W), overwritten.
  virtual void global_avg_pool_backward(const Tensor& dy, const Tensor& dx) = 0;

  // ---- attention ----------------------------------------------------------------------------
  /// Causal attention over up to max_batch samples of `heads` heads, S = seq_len, Dh =
  /// head_dim, activations of `dtype`.
  virtual std::unique_ptr<AttentionOp> make_attention(int max_batch, int heads, int seq_len,
                                                      int head_dim, DType dtype) = 0;

  // ---- losses (loss: fp64 [1] in the backend's memory, ADDED to) --------------------------
  /// loss += scale sum_n -log softmax(logits[n])[labels[n]]; dlogits = (softmax - onehot)
  /// scale grad_scale (overwritten; may alias logits). logits [N, K], labels int32 [N].
  virtual void softmax_cross_entropy(const Tensor& logits, const Tensor& labels, float scale,
                                     float grad_scale, const Tensor& dlogits,
                                     const Tensor& loss) = 0;
  /// loss += scale sum_n BCEWithLogits(x_n, y_n); dlogits = (sigmoid(x) - y) scale grad_scale.
  /// logits [N, 1], labels fp32 [N] (0 or 1).
  virtual void bce_with_logits(const Tensor& logits, const Tensor& labels, float scale,
                               float grad_scale, const Tensor& dlogits, const Tensor& loss) = 0;

  // ---- embeddings and the DLRM interaction ------------------------------------------------
  /// An embedding bag over tables of `rows` x `dim`, batches of `batch` bags holding at most
  /// `max_nnz` lookups, pooled by `mode`.
  virtual std::unique_ptr<EmbeddingBagOp> make_embedding_bag(std::int64_t rows, int dim,
                                                             int batch, std::int64_t max_nnz,
                                                             Pooling mode) = 0;
  /// table[rows(u), :] -= lr values(u, :) (fp32 math, rounded when the table is 16-bit).
  virtual void sparse_sgd(const Tensor& table, const SparseRows& grad, float lr) = 0;
  /// FBGEMM's rowwise Adagrad: state[r] += mean_d g[d]^2; table[r, :] -= lr / (sqrt(state[r])
  /// + eps) g, for every row of grad; state fp32 [R].
  virtual void sparse_rowwise_adagrad(const Tensor& table, const Tensor& state,
                                      const SparseRows& grad,
                                      const RowwiseAdagradOptions& opt) = 0;
  /// out [N, D + F(F-1)/2] = concat(z[n, 0, :], dot(z[n, i, :], z[n, j, :]) for i = 1..F-1,
  /// j < i) for z [N, F, D] (DLRM's dot interaction without self-interaction).
  virtual void interaction_forward(const Tensor& z, const Tensor& out) = 0;
  /// dz [N, F, D] (overwritten) from dout = d loss / d out.
  virtual void interaction_backward(const Tensor& z, const Tensor& dout, const Tensor& dz) = 0;

  // ---- optimizer updates on fp32 master parameters [n] ------------------------------------
  /// SGD with momentum and weight decay (SgdOptions).
  virtual void sgd_momentum(const Tensor& params, const Tensor& grads, const Tensor& velocity,
                            const SgdOptions& opt, const MasterUpdate& update) = 0;
  /// Adam step `step` >= 1 (AdamOptions, torch.optim.Adam's algorithm).
  virtual void adam(const Tensor& params, const Tensor& grads, const Tensor& m, const Tensor& v,
                    int step, const AdamOptions& opt, const MasterUpdate& update) = 0;
  /// flag (int32 [1]) = 1 when any element of x is NaN or infinite; left alone otherwise.
  virtual void check_nonfinite(const Tensor& x, const Tensor& flag) = 0;
};

}  // namespace scaletune::ops
