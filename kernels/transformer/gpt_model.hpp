#pragma once
// A GPT-2 language model written once on the op layer (Radford et al. 2019, "Language Models
// are Unsupervised Multitask Learners"): token and position embeddings, pre-LayerNorm
// transformer blocks, a final LayerNorm and an LM head tied to the token embedding, trained with
// softmax cross-entropy on next-token ids. Parameters and gradients are windows into tensors
// owned by the caller: one flat tensor (one gradient exchange covers the whole model) or one
// tensor per parameter unit, run stage by stage (ZeRO-3 gathers each unit just before its stage).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/ops/memory_ledger.hpp"
#include "kernels/transformer/transformer_block.hpp"

namespace scaletune::kernels {

/// Sizes of a GPT model, the largest micro-batch it runs and the type of its activations.
struct GptShape {
  int layers;               ///< L, transformer blocks, >= 1
  int hidden;               ///< H, model width; a multiple of heads
  int heads;                ///< attention heads
  int seq_len;              ///< S, tokens per sample (and rows of the position embedding)
  int vocab;                ///< V, token ids are in [0, V)
  int ffn_mult = 4;         ///< feed-forward width F = ffn_mult * H
  float dropout = 0.0f;     ///< residual dropout probability of every block, in [0, 1)
  int max_micro_batch = 1;  ///< B_max, samples per forward_backward at most
  /// Activations and the working copy of the parameters (TransformerBlockShape::dtype)
  ops::DType dtype = ops::DType::fp32;
  /// The backend the model runs on (TransformerBlockShape::backend)
  ops::BackendKind backend = ops::BackendKind::host;
};

/// Parameter and gradient tensors of a GptModel, one set per parameter unit (see
/// GptModel::unit_parameter_counts), in the backend's memory, owned by the caller and kept
/// alive: fp32 parameters and gradients, and the working copy of the parameters in
/// GptShape::dtype that the GEMMs read (none for fp32: the parameters are read). Tensors of
/// different blocks may be the same memory (a ZeRO-3 caller gathers each block's parameters into
/// one shared layer buffer just before that block's stage calls).
struct GptBuffers {
  ops::Tensor embed_params, embed_grads;               ///< [(V + S) H]: wte [V, H] then wpe [S, H]
  std::vector<ops::Tensor> block_params, block_grads;  ///< [L] of TransformerBlock's layout
  ops::Tensor lnf_params, lnf_grads;                   ///< [2 H]: ln_f gamma then beta
  ops::Tensor embed_compute;                           ///< [(V + S) H] working copy; none for fp32
  std::vector<ops::Tensor> block_compute;              ///< [L] working copies; empty for fp32
};

/// A GPT-2 model on token ids [B, S] (flattened sample-major: row t = b * S + s):
///   x = wte[tokens] + wpe[s];  x = block_l(x) for l = 0..L-1;  logits = ln_f(x) wte^T [T, V],
/// T = B * S, with the blocks of TransformerBlock (LayerNorm eps 1e-5) and no embedding dropout
/// (only the blocks' residual dropouts). Flat parameter layout (gradients alike), row-major:
///   wte [V, H], wpe [S, H], block 0 .. block L-1 (each TransformerBlock::parameter_count(H,
///   ffn_mult) floats in TransformerBlock's layout), ln_f gamma [H], ln_f beta [H];
/// its parameter units are embeddings (unit 0), blocks 0..L-1 (units 1..L) and ln_f (unit
/// L + 1). A micro-batch runs either as one forward_backward (or train_micro_batch) call or as
/// its stage calls in this order: embed_forward, block_forward(0..L-1), head_forward_backward,
/// block_backward(L-1..0), embed_backward; each stage reads only its own units' parameters, so
/// a caller may gather them just before the call and drop them after it. The loss accumulates in
/// the model's fp64 [1] loss() tensor. Activations for B_max samples are made through the
/// ledger at construction; the stage calls allocate nothing and only queue backend ops (token
/// ids are int32 [T] tensors of the backend).
class GptModel {
 public:
  /// buffers: each tensor as long as its unit (GptBuffers), the memory outliving the model; the
  /// ledger's backend must outlive it too. Throws std::invalid_argument when a size is < 1,
  /// hidden is not a multiple of heads, dropout is outside [0, 1) or a buffer has the wrong
  /// length or type (naming it, e.g. "block_grads[1]"); std::bad_alloc
  /// (core::MemoryBudgetExceeded past the ledger's budget) when the activations do not fit.
  GptModel(const GptShape& shape, const GptBuffers& buffers, ops::MemoryLedger& ledger);

  /// params, grads: fp32 [parameter_count(shape)] in the flat layout, outliving the model
  /// (the model uses flat_windows of them); compute_params: their working copy in shape.dtype
  /// (none for fp32). Throws as the GptBuffers constructor.
  GptModel(const GptShape& shape, const ops::Tensor& params, const ops::Tensor& grads,
           ops::MemoryLedger& ledger, const ops::Tensor& compute_params = {});

  /// One checked training micro-batch, synchronously (for tests and checks): downloads tokens
  /// and targets [T] (int32 ids in [0, V), T = B * S with 1 <= B <= B_max) to check them, then
  /// zeroes loss() and runs train_micro_batch with grad_scale 1, and returns the downloaded
  /// loss = loss_scale * sum_t -log softmax(logits[t])[target t]. Throws std::invalid_argument,
  /// before touching the gradients, when a length does not fit or an id is out of range (naming
  /// the array, index, sample and position).
  double forward_backward(const ops::Tensor& tokens, const ops::Tensor& targets, float loss_scale,
                          const BlockDropout& dropout);

  /// One training micro-batch: exactly the stage calls in order, ADDING d loss / d params
  /// (times grad_scale) into the gradients (the caller zeroes them once per optimizer step, so
  /// micro-batches accumulate) and the scaled loss into loss(). Ids are not checked.
  void train_micro_batch(const ops::Tensor& tokens, const ops::Tensor& targets, float loss_scale,
                         float grad_scale, const BlockDropout& dropout);

  /// Stage 1: starts a micro-batch (abandoning any unfinished one) with tokens int32 [T],
  /// T = B * S, 1 <= B <= B_max: residual 0 [T, H] = wte[tokens] + wpe[t mod S]. Reads unit 0's
  /// parameters. tokens must stay unchanged until embed_backward; its ids must be in [0, V)
  /// (not checked: see forward_backward). Throws std::invalid_argument when the length or type
  /// does not fit.
  void embed_forward(const ops::Tensor& tokens);

  /// Stage 2, for layer = 0..L-1 in order: residual layer + 1 = block_layer(residual layer).
  /// Block l draws its dropout masks with seed splitmix64(dropout.seed) + l, dropout.step and
  /// dropout.first_row (the global token row of tokens[0]). Reads unit layer + 1's parameters.
  /// Throws std::invalid_argument when layer is outside [0, L), std::logic_error when the
  /// previous stage call was not embed_forward (layer 0) or block_forward(layer - 1).
  void block_forward(int layer, const BlockDropout& dropout);

  /// Stage 3, after block_forward(L-1): logits = ln_f(residual L) wte^T, loss() += loss_scale *
  /// sum_t -log softmax(logits[t])[targets[t]] (targets int32 [T], ids in [0, V), not checked),
  /// and its backward with the loss gradient times grad_scale (fp16 loss scaling; 1 otherwise):
  /// ADDS into the wte and ln_f gradients and leaves d loss / d residual L for block_backward.
  /// Reads units 0 and L + 1. Throws std::invalid_argument (before touching the gradients) when
  /// targets does not fit, std::logic_error when called out of order.
  void head_forward_backward(const ops::Tensor& targets, float loss_scale, float grad_scale = 1.0f);

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

  /// fp64 [1]: the sum of the scaled losses of the head_forward_backward calls since the last
  /// zero_loss() (in the backend's memory; download it, or all-reduce it in place).
  const ops::Tensor& loss() const { return m_loss; }
  /// Queues loss() = 0.
  void zero_loss();

  /// Bytes of the activation and scratch buffers and the loss this model (and its blocks) made.
  std::int64_t activation_bytes() const { return m_bytes; }

  /// Bytes GptModel(shape, ...) makes, without making one (for memory models), with
  /// T = B_max * S and e bytes per activation (4 for fp32, 2 for 16 bits):
  /// e T ((L + 4) H + V) for the residual stream of every block boundary, ln_f's output, the
  /// logits and two gradient buffers, 4 (2 T + 2 H) for ln_f's statistics and parameter
  /// gradients of one call, 8 for the fp64 loss, plus L * TransformerBlock::activation_bytes of
  /// the block shape. Throws as the constructor.
  static std::int64_t activation_bytes(const GptShape& shape);

  /// Trainable values: V H + S H + L * TransformerBlock::parameter_count(H, ffn_mult) + 2 H
  /// (the LM head is tied to wte and adds none). GPT-2 small (L 12, H 768, V 50257, S 1024):
  /// 124,439,808. Throws std::invalid_argument on a bad shape.
  static std::int64_t parameter_count(const GptShape& shape);

  /// Floats of each parameter unit [L + 2], in flat-layout order: (V + S) H, then L times
  /// TransformerBlock::parameter_count(H, ffn_mult), then 2 H; they sum to parameter_count.
  /// Throws std::invalid_argument on a bad shape.
  static std::vector<std::int64_t> unit_parameter_counts(const GptShape& shape);

  /// The units' windows of flat params and grads (fp32 [parameter_count(shape)] each) and of
  /// their working copy compute_params (none for fp32). Throws std::invalid_argument on a bad
  /// shape or when a tensor has the wrong length.
  static GptBuffers flat_windows(const GptShape& shape, const ops::Tensor& params,
                                 const ops::Tensor& grads, const ops::Tensor& compute_params = {});

  /// Throws std::invalid_argument naming `name`, the index, sample and position of the first id
  /// of `ids` outside [0, vocab) (host ids, e.g. before they are uploaded).
  static void check_ids(const GptShape& shape, const char* name, std::span<const std::int32_t> ids);

 private:
  ops::Backend& m_ops;
  GptShape m_shape;
  ops::Tensor m_wte, m_wpe, m_wte_grad, m_wpe_grad;  ///< [V, H], [S, H] windows of unit 0
  ops::Tensor m_wte_compute;                         ///< [V, H]: the LM head's wte
  ops::Tensor m_lnf_gamma, m_lnf_beta, m_lnf_gamma_grad, m_lnf_beta_grad;  ///< [H] windows
  std::vector<TransformerBlock> m_blocks;
  std::vector<ops::Tensor> m_residual;  ///< [L + 1] of [T_max, H]: block l's input, then output
  ops::Tensor m_lnf_out, m_lnf_mean, m_lnf_rstd;  ///< [T_max, H], fp32 [T_max], fp32 [T_max]
  ops::Tensor m_logits;                           ///< [T_max, V]: logits, then their gradient
  ops::Tensor m_grad_a, m_grad_b;                 ///< [T_max, H] each, backward ping-pong
  ops::Tensor m_d_gamma, m_d_beta;                ///< fp32 [H] each: ln_f gradients of one call
  ops::Tensor m_loss;                             ///< fp64 [1]
  std::int64_t m_bytes = 0;
  ops::Tensor m_tokens;  ///< the latest embed_forward's tokens [T]
  int m_done = -1;       ///< position of the latest stage call of this micro-batch; -1 for none

  std::int64_t tokens() const { return m_tokens.dim(0); }
  ops::Tensor rows(const ops::Tensor& buffer, std::int64_t cols) const;
  /// d loss / d residual L - n after n block backwards: m_grad_a or m_grad_b [T, H].
  ops::Tensor residual_grad(int n) const;
  /// T of tokens int32 [T], T = B * S with 1 <= B <= B_max; throws std::invalid_argument
  /// otherwise.
  std::int64_t checked_token_count(const ops::Tensor& tokens) const;
  /// Throws std::invalid_argument unless targets is int32 [count].
  void check_targets(const ops::Tensor& targets, std::int64_t count) const;
  /// The stage call at `position` of a micro-batch: embed_forward 0, block_forward(l) 1 + l,
  /// head_forward_backward L + 1, block_backward(l) 2 L + 1 - l, embed_backward 2 L + 2.
  std::string stage_name(int position) const;
  /// Throws std::logic_error naming the call at `position` unless the previous one just ran.
  void require_next(int position) const;
  int checked_layer(const char* call, int layer) const;
};

}  // namespace scaletune::kernels
