#pragma once
// A GPT-2 language model on the host (Radford et al. 2019, "Language Models are Unsupervised
// Multitask Learners"): token and position embeddings, pre-LayerNorm transformer blocks, a
// final LayerNorm and an LM head tied to the token embedding, trained with softmax
// cross-entropy on next-token ids. Parameters and gradients are windows into flat buffers
// owned by the caller, so one gradient all-reduce covers the whole model.

#include <cstddef>
#include <cstdint>
#include <span>
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

/// Fills `params` ([GptModel::parameter_count(shape)] floats, the layout of GptModel) as GPT-2
/// initialises (Radford et al. 2019, section 2.3; the released model code and nanoGPT):
/// embeddings (wte, wpe) and the qkv and fc1 weights normal(0, 0.02); the residual
/// projections (each block's proj and fc2 weights) normal(0, 0.02 / sqrt(2 L)), the paper's
/// 1 / sqrt(N) scaling with N = 2 L residual layers; every bias 0; every LayerNorm gamma 1 and
/// beta 0. Draws come from std::mt19937_64 seeded with `seed`, tensor by tensor in layout order
/// (std::normal_distribution<float>). Throws std::invalid_argument on a bad shape (as
/// GptModel's constructor) or when params has the wrong length.
void init_gpt_parameters(const GptShape& shape, std::uint64_t seed, std::span<float> params);

/// A GPT-2 model on token ids [B, S] (flattened sample-major: row t = b * S + s):
///   x = wte[tokens] + wpe[s];  x = block_l(x) for l = 0..L-1;  logits = ln_f(x) wte^T [T, V],
/// T = B * S, with the blocks of TransformerBlock (LayerNorm eps 1e-5) and no embedding dropout
/// (only the blocks' residual dropouts). Flat parameter layout (gradients alike), row-major:
///   wte [V, H], wpe [S, H], block 0 .. block L-1 (each TransformerBlock::parameter_count(H,
///   ffn_mult) floats in TransformerBlock's layout), ln_f gamma [H], ln_f beta [H].
/// Activations for B_max samples are allocated at construction; forward_backward allocates
/// nothing. All tensors are host, LayoutRight, contiguous.
class GptModel {
 public:
  /// params, grads: [parameter_count(shape)] floats that outlive the model. Throws
  /// std::invalid_argument when a size is < 1, hidden is not a multiple of heads, dropout is
  /// outside [0, 1) or a buffer has the wrong length; std::bad_alloc when the activations do
  /// not fit.
  GptModel(const GptShape& shape, std::span<float> params, std::span<float> grads);

  /// One training micro-batch: tokens [T] and targets [T] (ids in [0, V), T = B * S with
  /// 1 <= B <= B_max) run forward to loss = loss_scale * sum_t -log softmax(logits[t])[target
  /// t] (softmax_cross_entropy), then backward, ADDING d loss / d params into the gradient
  /// buffer (the caller zeroes it once per optimizer step, so micro-batches accumulate). Block
  /// l draws its dropout masks with seed splitmix64(dropout.seed) + l, dropout.step and
  /// dropout.first_row (the global token row of tokens[0]). Returns the scaled loss. Throws
  /// std::invalid_argument, before touching the gradients, when a length does not fit or an id
  /// is out of range (naming the array, index, sample and position).
  double forward_backward(const Labels& tokens, const Labels& targets, float loss_scale,
                          const BlockDropout& dropout);

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

 private:
  GptShape m_shape;
  Tensor2 m_wte, m_wpe, m_wte_grad, m_wpe_grad;  ///< [V, H], [S, H] windows of params / grads
  Vector m_lnf_gamma, m_lnf_beta, m_lnf_gamma_grad, m_lnf_beta_grad;  ///< [H] windows
  std::vector<TransformerBlock> m_blocks;
  Vector m_arena;                  ///< every buffer below is a window into this one
  std::vector<Vector> m_residual;  ///< [L + 1] of [T_max, H]: block l's input, then the output
  Vector m_lnf_out, m_lnf_mean, m_lnf_rstd;  ///< [T_max, H], [T_max], [T_max]
  Vector m_logits;                           ///< [T_max, V]: logits, then their gradient
  Vector m_grad_a, m_grad_b;                 ///< [T_max, H] each, backward ping-pong
  Vector m_d_gamma, m_d_beta;                ///< [H] each: ln_f gradients of one call

  Tensor2 rows(const Vector& buffer, std::size_t tokens, std::size_t cols) const;
  std::size_t checked_tokens(const Labels& tokens, const Labels& targets) const;
  void embed(const Labels& tokens, const Tensor2& x) const;
  double head_forward_backward(const Tensor2& x, const Labels& targets, float loss_scale,
                               const Tensor2& dx);
  void embed_backward(const Labels& tokens, const Tensor2& dx) const;
};

}  // namespace scaletune::kernels
