#pragma once
// A GPT-2 language model on the host (Radford et al. 2019, "Language Models are Unsupervised
// Multitask Learners"): token and position embeddings, pre-LayerNorm transformer blocks, a
// final LayerNorm and an LM head tied to the token embedding, trained with softmax
// cross-entropy on next-token ids. Parameters and gradients are windows into buffers owned by
// the caller: one flat buffer (one gradient all-reduce covers the whole model) or one buffer
// per parameter unit, run stage by stage (ZeRO-3 gathers each unit just before its stage).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/host/tensor.hpp"
#include "kernels/host/transformer_block.hpp"

namespace scaletune::kernels {

/// Sizes of a GPT model and the largest micro-batch it runs.
struct GptShape {
  int layers;               ///< L, transformer blocks, >= 1
  int hidden;               ///< H, model width; a multiple of heads
  int heads;                ///< attention heads
  int seq_len;              ///< S, tokens per sample (and rows of the position embedding)
  int vocab;                ///< V, token ids are in [0, V)
  int ffn_mult = 4;         ///< feed-forward width F = ffn_mult * H
  float dropout = 0.0f;     ///< residual dropout probability of every block, in [0, 1)
  int max_micro_batch = 1;  ///< B_max, samples per forward_backward at most
};

/// Parameter and gradient buffers of a GptModel, one pair per parameter unit (see
/// GptModel::unit_parameter_counts): host floats the caller owns and keeps alive. Spans of
/// different blocks may be the same memory (a ZeRO-3 caller gathers each block's parameters
/// into one shared layer buffer just before that block's stage calls).
struct GptBuffers {
  std::span<float> embed_params, embed_grads;  ///< [(V + S) H]: wte [V, H] then wpe [S, H]
  std::vector<std::span<float>> block_params, block_grads;  ///< [L] of TransformerBlock's layout
  std::span<float> lnf_params, lnf_grads;                   ///< [2 H]: ln_f gamma then beta
};

/// A GPT-2 model on token ids [B, S] (flattened sample-major: row t = b * S + s):
///   x = wte[tokens] + wpe[s];  x = block_l(x) for l = 0..L-1;  logits = ln_f(x) wte^T [T, V],
/// T = B * S, with the blocks of TransformerBlock (LayerNorm eps 1e-5) and no embedding dropout
/// (only the blocks' residual dropouts). Flat parameter layout (gradients alike), row-major:
///   wte [V, H], wpe [S, H], block 0 .. block L-1 (each TransformerBlock::parameter_count(H,
///   ffn_mult) floats in TransformerBlock's layout), ln_f gamma [H], ln_f beta [H];
/// its parameter units are embeddings (unit 0), blocks 0..L-1 (units 1..L) and ln_f (unit
/// L + 1). A micro-batch runs either as one forward_backward call or as its stage calls in
/// this order: embed_forward, block_forward(0..L-1), head_forward_backward,
/// block_backward(L-1..0), embed_backward; each stage reads only its own units' parameters,
/// so a caller may gather them just before the call and drop them after it.
/// Activations for B_max samples are allocated at construction; forward_backward and the
/// stage calls allocate nothing. All tensors are host, LayoutRight, contiguous.
class GptModel {
 public:
  /// buffers: each span as long as its unit (GptBuffers), the memory outliving the model.
  /// Throws std::invalid_argument when a size is < 1, hidden is not a multiple of heads,
  /// dropout is outside [0, 1) or a buffer has the wrong length (naming it, e.g.
  /// "block_grads[1]"); std::bad_alloc when the activations do not fit.
  GptModel(const GptShape& shape, const GptBuffers& buffers);

  /// params, grads: [parameter_count(shape)] floats in the flat layout that outlive the model
  /// (the model uses flat_windows of them). Throws as the GptBuffers constructor.
  GptModel(const GptShape& shape, std::span<float> params, std::span<float> grads);

  /// One training micro-batch: tokens [T] and targets [T] (ids in [0, V), T = B * S with
  /// 1 <= B <= B_max) run forward to loss = loss_scale * sum_t -log softmax(logits[t])[target
  /// t] (softmax_cross_entropy), then backward, ADDING d loss / d params into the gradient
  /// buffers (the caller zeroes them once per optimizer step, so micro-batches accumulate).
  /// Exactly the stage calls in order (see block_forward for the dropout masks). Returns the
  /// scaled loss. Throws std::invalid_argument, before touching the gradients, when a length
  /// does not fit or an id is out of range (naming the array, index, sample and position).
  double forward_backward(const Labels& tokens, const Labels& targets, float loss_scale,
                          const BlockDropout& dropout);

  /// Stage 1: starts a micro-batch (abandoning any unfinished one) with tokens [T], T = B * S,
  /// 1 <= B <= B_max: residual 0 [T, H] = wte[tokens] + wpe[t mod S]. Reads unit 0's
  /// parameters. tokens must stay unchanged until embed_backward. Throws std::invalid_argument
  /// when the length does not fit or an id is outside [0, V).
  void embed_forward(const Labels& tokens);

  /// Stage 2, for layer = 0..L-1 in order: residual layer + 1 = block_layer(residual layer).
  /// Block l draws its dropout masks with seed splitmix64(dropout.seed) + l, dropout.step and
  /// dropout.first_row (the global token row of tokens[0]). Reads unit layer + 1's parameters.
  /// Throws std::invalid_argument when layer is outside [0, L), std::logic_error when the
  /// previous stage call was not embed_forward (layer 0) or block_forward(layer - 1).
  void block_forward(int layer, const BlockDropout& dropout);

  /// Stage 3, after block_forward(L-1): logits = ln_f(residual L) wte^T, the loss of targets
  /// [T] (ids in [0, V)) as forward_backward, and its backward: ADDS into the wte and ln_f
  /// gradients and leaves d loss / d residual L for block_backward. Reads units 0 and L + 1.
  /// Returns the scaled loss. Throws std::invalid_argument (before touching the gradients) when
  /// targets does not fit, std::logic_error when called out of order.
  double head_forward_backward(const Labels& targets, float loss_scale);

  /// Stage 4, for layer = L-1..0 in order: ADDS block layer's parameter gradients into its
  /// gradient buffer and turns d loss / d residual layer + 1 into d loss / d residual layer.
  /// Reads unit layer + 1's parameters, which must equal those of its block_forward. Throws
  /// std::invalid_argument when layer is outside [0, L), std::logic_error when the previous
  /// stage call was not head_forward_backward (layer L-1) or block_backward(layer + 1).
  void block_backward(int layer);

  /// Stage 5, after block_backward(0): ADDS d loss / d wte[tokens] and d loss / d wpe into the
  /// embedding gradients for the latest embed_forward's tokens; reads no parameters. Ends the
  /// micro-batch. Throws std::logic_error when called out of order.
  void embed_backward();

  /// Bytes of the activation and scratch buffers this model (and its blocks) allocated.
  std::int64_t activation_bytes() const;

  /// Bytes GptModel(shape, ...) allocates, without making one (for memory models), with
  /// T = B_max * S: 4 * (T * ((L + 4) H + V + 2) + 2 H) for the residual stream of every
  /// block boundary, ln_f's output and statistics, the logits and two gradient buffers, plus
  /// L * TransformerBlock::activation_bytes of the block shape. Throws as the constructor.
  static std::int64_t activation_bytes(const GptShape& shape);

  /// Trainable values: V H + S H + L * TransformerBlock::parameter_count(H, ffn_mult) + 2 H
  /// (the LM head is tied to wte and adds none). GPT-2 small (L 12, H 768, V 50257, S 1024):
  /// 124,439,808. Throws std::invalid_argument on a bad shape.
  static std::int64_t parameter_count(const GptShape& shape);

  /// Floats of each parameter unit [L + 2], in flat-layout order: (V + S) H, then L times
  /// TransformerBlock::parameter_count(H, ffn_mult), then 2 H; they sum to parameter_count.
  /// Throws std::invalid_argument on a bad shape.
  static std::vector<std::int64_t> unit_parameter_counts(const GptShape& shape);

  /// The units' windows of flat params and grads ([parameter_count(shape)] floats each).
  /// Throws std::invalid_argument on a bad shape or when a buffer has the wrong length.
  static GptBuffers flat_windows(const GptShape& shape, std::span<float> params,
                                 std::span<float> grads);

 private:
  GptShape m_shape;
  Tensor2 m_wte, m_wpe, m_wte_grad, m_wpe_grad;  ///< [V, H], [S, H] windows of unit 0
  Vector m_lnf_gamma, m_lnf_beta, m_lnf_gamma_grad, m_lnf_beta_grad;  ///< [H] windows
  std::vector<TransformerBlock> m_blocks;
  Vector m_arena;                  ///< every buffer below is a window into this one
  std::vector<Vector> m_residual;  ///< [L + 1] of [T_max, H]: block l's input, then the output
  Vector m_lnf_out, m_lnf_mean, m_lnf_rstd;  ///< [T_max, H], [T_max], [T_max]
  Vector m_logits;                           ///< [T_max, V]: logits, then their gradient
  Vector m_grad_a, m_grad_b;                 ///< [T_max, H] each, backward ping-pong
  Vector m_d_gamma, m_d_beta;                ///< [H] each: ln_f gradients of one call
  Labels m_tokens;                           ///< the latest embed_forward's tokens [T]
  int m_done = -1;  ///< position of the latest stage call of this micro-batch; -1 for none

  Tensor2 rows(const Vector& buffer, std::size_t cols) const;
  /// d loss / d residual L - n after n block backwards: m_grad_a or m_grad_b [T, H].
  Tensor2 residual_grad(int n) const;
  void check_targets(const Labels& targets) const;
  /// The stage call at `position` of a micro-batch: embed_forward 0, block_forward(l) 1 + l,
  /// head_forward_backward L + 1, block_backward(l) 2 L + 1 - l, embed_backward 2 L + 2.
  std::string stage_name(int position) const;
  /// Throws std::logic_error naming the call at `position` unless the previous one just ran.
  void require_next(int position) const;
  int checked_layer(const char* call, int layer) const;
};

}  // namespace scaletune::kernels
