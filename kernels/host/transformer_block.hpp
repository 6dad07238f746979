#pragma once
// One pre-LayerNorm GPT-2 transformer block (Radford et al. 2019, "Language Models are
// Unsupervised Multitask Learners", section 2.3), forward and backward, whose parameters and
// gradients are windows into flat buffers owned by the caller.

#include <cstdint>
#include <span>

#include "kernels/host/attention.hpp"
#include "kernels/host/dropout.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Sizes of one block and the largest micro-batch it runs.
struct TransformerBlockShape {
  int hidden = 768;         ///< H, model width; a multiple of heads
  int heads = 12;           ///< attention heads; head width Dh = H / heads
  int seq_len = 1024;       ///< S, tokens per sample
  int ffn_mult = 4;         ///< feed-forward width F = ffn_mult * H
  int max_micro_batch = 1;  ///< B_max, samples per forward at most
  float dropout_p = 0.0f;   ///< drop probability of both residual dropouts, in [0, 1)
};

/// Which dropout masks one forward draws (see DropoutMask). The attention branch's dropout uses
/// seed 2 * seed, the MLP branch's 2 * seed + 1, so give every block of a model its own seed.
struct BlockDropout {
  std::uint64_t seed = 0;      ///< run seed mixed with the block's index
  std::uint64_t step = 0;      ///< training iteration
  std::int64_t first_row = 0;  ///< global token row of x's row 0, >= 0
};

/// One GPT-2 block on x [T, H], T = B * S token rows ordered sample-major (row b * S + s):
///   h = x + dropout(proj(attn(ln1(x))));  y = h + dropout(fc2(gelu(fc1(ln2(h))))),
/// with causal multi-head attention: qkv = ln1(x) Wqkv^T + bqkv [T, 3H], whose columns
/// [0, H), [H, 2H), [2H, 3H) are q, k, v and, within each, columns [h * Dh, (h + 1) * Dh) are
/// head h (GPT-2's split and view(B, S, heads, Dh).transpose(1, 2)). LayerNorm eps 1e-5, GELU in
/// its tanh form. Flat parameter layout (gradients alike), each weight [out, in] row-major:
///   ln1 gamma [H], ln1 beta [H], qkv w [3H, H], qkv b [3H], proj w [H, H], proj b [H],
///   ln2 gamma [H], ln2 beta [H], fc1 w [F, H], fc1 b [F], fc2 w [H, F], fc2 b [H].
/// Activations for B_max samples are allocated at construction; forward and backward allocate
/// nothing. All tensors are host, LayoutRight, contiguous.
class TransformerBlock {
 public:
  /// params, grads: [parameter_count(hidden, ffn_mult)] floats that outlive the block. Throws
  /// std::invalid_argument when a size is < 1, hidden is not a multiple of heads, dropout_p is
  /// outside [0, 1) or a buffer has the wrong length; std::bad_alloc when the activations do
  /// not fit.
  TransformerBlock(const TransformerBlockShape& shape, std::span<float> params,
                   std::span<float> grads);

  /// y [T, H] = the block applied to x [T, H], T = B * S with 1 <= B <= B_max; keeps what
  /// backward needs (x must stay unchanged until then). y must not alias x. With dropout_p 0 no
  /// dropout runs. Throws std::invalid_argument when a shape does not fit, y aliases x or
  /// dropout.first_row < 0.
  void forward(const Tensor2& x, const Tensor2& y, const BlockDropout& dropout);

  /// Given dy [T, H] for the latest forward, ADDS d loss / d params into the gradient buffer
  /// (the caller zeroes it once per optimizer step, so micro-batches accumulate) and overwrites
  /// dx [T, H] with d loss / d x. dy is only read; dx must not alias x or dy. Throws
  /// std::invalid_argument when no forward ran yet, a shape differs from the forward's or dx
  /// aliases x or dy.
  void backward(const Tensor2& dy, const Tensor2& dx);

  /// Bytes of the activation and scratch buffers this block allocated.
  std::int64_t activation_bytes() const;

  /// Bytes TransformerBlock(shape, ...) allocates, without making one (for memory models), with
  /// T = B_max * S, F = ffn_mult * H: 4 * (T * (16 H + 3 F + 4) + 2 H) for activations and
  /// scratch, plus AttentionWorkspace::bytes(B_max, heads, S). Throws as the constructor on a
  /// bad shape.
  static std::int64_t activation_bytes(const TransformerBlockShape& shape);

  /// Trainable values of one block: 4 H^2 + 2 F H + 9 H + F with F = ffn_mult * H, which is
  /// 12 H^2 + 13 H for ffn_mult 4 (GPT-2 small: 7,087,872 per block). Throws
  /// std::invalid_argument when hidden or ffn_mult is < 1.
  static std::int64_t parameter_count(int hidden, int ffn_mult);

 private:
  /// Windows of one flat parameter (or gradient) buffer, in the documented layout.
  struct Weights {
    Vector ln1_gamma, ln1_beta;
    Tensor2 qkv_w;
    Vector qkv_b;
    Tensor2 proj_w;
    Vector proj_b, ln2_gamma, ln2_beta;
    Tensor2 fc1_w;
    Vector fc1_b;
    Tensor2 fc2_w;
    Vector fc2_b;
  };
  static Weights windows(const TransformerBlockShape& shape, float* base);

  TransformerBlockShape m_shape;
  Weights m_params, m_grads;
  Vector m_arena;  ///< every activation and scratch buffer below is a window into this one
  // Kept from forward for backward (T_max = B_max * S rows).
  Vector m_ln1_out, m_ln1_mean, m_ln1_rstd;  ///< [T_max, H], [T_max], [T_max]
  Vector m_q, m_k, m_v;                      ///< [B_max, heads, S, Dh] each
  Vector m_merged;                           ///< [T_max, H] attention output, proj's input
  Vector m_h;                                ///< [T_max, H] residual stream after attention
  Vector m_ln2_out, m_ln2_mean, m_ln2_rstd;  ///< [T_max, H], [T_max], [T_max]
  Vector m_fc1_out, m_gelu_out;              ///< [T_max, F] each
  AttentionWorkspace m_attention;            ///< probabilities [B_max, heads, S, S] and scratch
  // Scratch of both passes.
  Vector m_qkv;    ///< [T_max, 3H]: qkv projection (forward), its gradient (backward)
  Vector m_heads;  ///< [B_max, heads, S, Dh]: attention output (forward), its gradient (backward)
  // Backward-only scratch.
  Vector m_d_hidden, m_d_merged;  ///< [T_max, H] each
  Vector m_d_ffn;                 ///< [T_max, F]
  Vector m_dq, m_dk, m_dv;        ///< [B_max, heads, S, Dh] each
  Vector m_d_gamma, m_d_beta;     ///< [H] each: LayerNorm parameter gradients of one call
  Tensor2 m_input;                ///< the latest forward's x; [0, 0] before the first one
  BlockDropout m_dropout;         ///< the latest forward's masks

  std::size_t hidden() const;
  std::size_t ffn() const;
  /// Views of the latest forward's T rows (or B samples) of an activation buffer.
  Tensor2 rows(const Vector& buffer, std::size_t cols) const;
  Vector per_token(const Vector& buffer) const;
  Tensor4 per_head(const Vector& buffer) const;
  AttentionWorkspace attention_view() const;
  /// Dropout site 0 (attention branch) or 1 (MLP branch) of the latest forward.
  DropoutMask mask(std::uint64_t site) const;
  void apply_dropout(const Tensor2& branch, std::uint64_t site) const;
  /// grad itself when dropout_p is 0, else scratch = dropout_backward(grad).
  Tensor2 through_dropout(const Tensor2& grad, std::uint64_t site, const Tensor2& scratch) const;
  void attention_forward_branch(const Tensor2& x);
  void mlp_forward_branch(const Tensor2& y);
  void mlp_backward_branch(const Tensor2& dy, const Tensor2& dx);
  void attention_backward_branch(const Tensor2& dx);
  void add_layer_norm_grads(const Vector& gamma_grad, const Vector& beta_grad) const;
};

}  // namespace scaletune::kernels
