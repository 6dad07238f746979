#pragma once
// One pre-LayerNorm GPT-2 transformer block (Radford et al. 2019, "Language Models are
// Unsupervised Multitask Learners", section 2.3), forward and backward, written once on the op
// layer (ops::Backend): its parameters and gradients are windows into flat tensors owned by the
// caller, its activations are made through a MemoryLedger in the backend's memory.

#include <cstdint>
#include <memory>

#include "kernels/ops/memory_ledger.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

/// Sizes of one block, the largest micro-batch it runs and the element type of its activations.
struct TransformerBlockShape {
  int hidden = 768;         ///< H, model width; a multiple of heads
  int heads = 12;           ///< attention heads; head width Dh = H / heads
  int seq_len = 1024;       ///< S, tokens per sample
  int ffn_mult = 4;         ///< feed-forward width F = ffn_mult * H
  int max_micro_batch = 1;  ///< B_max, samples per forward at most
  float dropout_p = 0.0f;   ///< drop probability of both residual dropouts, in [0, 1)
  /// Activations and the matrices' working copy: fp32, or fp16 / bf16 on a backend that
  /// computes in them (parameters, gradients, LayerNorm statistics stay fp32)
  ops::DType dtype = ops::DType::fp32;
  /// The backend whose attention op the block makes (its workspace differs: activation_bytes)
  ops::BackendKind backend = ops::BackendKind::host;
};

/// Which dropout masks one forward draws (see ops::DropoutMask). The attention branch's dropout
/// uses seed 2 * seed, the MLP branch's 2 * seed + 1, so give every block of a model its own
/// seed.
struct BlockDropout {
  std::uint64_t seed = 0;      ///< run seed mixed with the block's index
  std::uint64_t step = 0;      ///< training iteration
  std::int64_t first_row = 0;  ///< global token row of x's row 0, >= 0
};

/// One GPT-2 block on x [T, H], T = B * S token rows ordered sample-major (row b * S + s):
///   h = x + dropout(proj(attn(ln1(x))));  y = h + dropout(fc2(gelu(fc1(ln2(h))))),
/// with causal multi-head attention (ops::AttentionOp): qkv = ln1(x) Wqkv^T + bqkv [T, 3H],
/// whose columns [0, H), [H, 2H), [2H, 3H) are q, k, v and, within each, columns
/// [h * Dh, (h + 1) * Dh) are head h (GPT-2's split and view(B, S, heads, Dh).transpose(1, 2)).
/// LayerNorm eps 1e-5, GELU in its tanh form. Flat parameter layout (gradients alike), each
/// weight [out, in] row-major:
///   ln1 gamma [H], ln1 beta [H], qkv w [3H, H], qkv b [3H], proj w [H, H], proj b [H],
///   ln2 gamma [H], ln2 beta [H], fc1 w [F, H], fc1 b [F], fc2 w [H, F], fc2 b [H].
/// Linear layers read their weights from the working copy (the 16-bit parameters under mixed
/// precision, the fp32 parameters otherwise) and their biases, the LayerNorms their gamma and
/// beta from the fp32 parameters; gradients are fp32. Activations for B_max samples are made at
/// construction; forward and backward allocate nothing and only queue backend ops.
class TransformerBlock {
 public:
  /// params, grads: fp32 tensors of parameter_count(hidden, ffn_mult) elements in the ledger's
  /// backend memory that outlive the block; compute_params: the working copy of params in
  /// shape.dtype (same count), "none" for fp32 (params is read). The backend must outlive the
  /// block. Throws std::invalid_argument when a size is < 1, hidden is not a multiple of heads,
  /// dropout_p is outside [0, 1), a tensor has the wrong length or type, or a 16-bit shape has
  /// no working copy; std::bad_alloc (core::MemoryBudgetExceeded past the ledger's budget) when
  /// the activations do not fit.
  TransformerBlock(const TransformerBlockShape& shape, const ops::Tensor& params,
                   const ops::Tensor& grads, ops::MemoryLedger& ledger,
                   const ops::Tensor& compute_params = {});

  /// y [T, H] = the block applied to x [T, H] (shape.dtype), T = B * S with 1 <= B <= B_max;
  /// keeps what backward needs (x must stay unchanged until then). y must not alias x. With
  /// dropout_p 0 no dropout runs. Throws std::invalid_argument when a shape or type does not
  /// fit, y aliases x or dropout.first_row < 0.
  void forward(const ops::Tensor& x, const ops::Tensor& y, const BlockDropout& dropout);

  /// Given dy [T, H] for the latest forward, ADDS d loss / d params into the gradients (the
  /// caller zeroes them once per optimizer step, so micro-batches accumulate) and overwrites
  /// dx [T, H] with d loss / d x. dy is only read; dx must not alias x or dy. Throws
  /// std::invalid_argument when no forward ran yet, a shape differs from the forward's or dx
  /// aliases x or dy.
  void backward(const ops::Tensor& dy, const ops::Tensor& dx);

  /// Bytes of the activation and scratch buffers this block made, its attention's included.
  std::int64_t activation_bytes() const { return m_bytes; }

  /// Bytes TransformerBlock(shape, ...) makes, without making one (for memory models), with
  /// T = B_max * S, F = ffn_mult * H and e bytes per activation (4 for fp32, 2 for 16 bits):
  /// e T (16 H + 3 F) for activations and scratch, 4 (4 T + 2 H) for the LayerNorm statistics
  /// and parameter gradients of one call, and the attention op's workspace: on the host e S^2
  /// (B_max heads + 1), its probabilities and an [S, S] backward scratch (AttentionWorkspace);
  /// on CUDA 2 e S^2 B_max heads, the probabilities and their gradients.
  /// Throws as the constructor on a bad shape.
  static std::int64_t activation_bytes(const TransformerBlockShape& shape);

  /// Trainable values of one block: 4 H^2 + 2 F H + 9 H + F with F = ffn_mult * H, which is
  /// 12 H^2 + 13 H for ffn_mult 4 (GPT-2 small: 7,087,872 per block). Throws
  /// std::invalid_argument when hidden or ffn_mult is < 1.
  static std::int64_t parameter_count(int hidden, int ffn_mult);

 private:
  /// Windows of one flat parameter (or gradient) tensor, in the documented layout.
  struct Weights {
    ops::Tensor ln1_gamma, ln1_beta, qkv_w, qkv_b, proj_w, proj_b;
    ops::Tensor ln2_gamma, ln2_beta, fc1_w, fc1_b, fc2_w, fc2_b;
  };
  static Weights windows(const TransformerBlockShape& shape, const ops::Tensor& flat);

  ops::Backend& m_ops;
  TransformerBlockShape m_shape;
  Weights m_params, m_compute, m_grads;
  // Kept from forward for backward ([T_max, ...] of shape.dtype; statistics fp32 [T_max]).
  ops::Tensor m_ln1_out, m_ln1_mean, m_ln1_rstd;
  ops::Tensor m_q, m_k, m_v;  ///< [B_max, heads, S, Dh] each
  ops::Tensor m_merged;       ///< [T_max, H] attention output, proj's input
  ops::Tensor m_h;            ///< [T_max, H] residual stream after attention
  ops::Tensor m_ln2_out, m_ln2_mean, m_ln2_rstd;
  ops::Tensor m_fc1_out, m_gelu_out;         ///< [T_max, F] each
  std::unique_ptr<ops::AttentionOp> m_attn;  ///< probabilities [B_max, heads, S, S], scratch
  // Scratch of both passes.
  ops::Tensor m_qkv;    ///< [T_max, 3H]: qkv projection (forward), its gradient (backward)
  ops::Tensor m_heads;  ///< [B_max, heads, S, Dh]: attention output (forward), its gradient
  // Backward-only scratch.
  ops::Tensor m_d_hidden, m_d_merged;  ///< [T_max, H] each
  ops::Tensor m_d_ffn;                 ///< [T_max, F]
  ops::Tensor m_dq, m_dk, m_dv;        ///< [B_max, heads, S, Dh] each
  ops::Tensor m_d_gamma, m_d_beta;     ///< fp32 [H] each: LayerNorm gradients of one call
  std::int64_t m_bytes = 0;
  ops::Tensor m_input;     ///< the latest forward's x; "none" before the first one
  BlockDropout m_dropout;  ///< the latest forward's masks

  std::int64_t hidden() const { return m_shape.hidden; }
  std::int64_t ffn() const { return std::int64_t{m_shape.hidden} * m_shape.ffn_mult; }
  std::int64_t tokens() const { return m_input.dim(0); }
  /// The latest forward's T rows [T, cols] (or B samples) of an activation buffer.
  ops::Tensor rows(const ops::Tensor& buffer, std::int64_t cols) const;
  ops::Tensor per_token(const ops::Tensor& buffer) const;
  ops::Tensor per_head(const ops::Tensor& buffer) const;
  /// Dropout site 0 (attention branch) or 1 (MLP branch) of the latest forward.
  ops::DropoutMask mask(std::uint64_t site) const;
  void apply_dropout(const ops::Tensor& branch, std::uint64_t site);
  /// grad itself when dropout_p is 0, else scratch = dropout_backward(grad).
  ops::Tensor through_dropout(const ops::Tensor& grad, std::uint64_t site,
                              const ops::Tensor& scratch);
  void attention_forward_branch(const ops::Tensor& x);
  void mlp_forward_branch(const ops::Tensor& y);
  void mlp_backward_branch(const ops::Tensor& dy, const ops::Tensor& dx);
  void attention_backward_branch(const ops::Tensor& dx);
  void add_layer_norm_grads(const ops::Tensor& gamma_grad, const ops::Tensor& beta_grad);
};

}  // namespace scaletune::kernels
