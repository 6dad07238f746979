#include "kernels/transformer/gpt_model.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/splitmix64.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/transformer/detail/tensor_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kModel = "GptModel";
constexpr float kLayerNormEps = 1e-5f;

void require_at_least_one(const char* name, int value) {
  if (value < 1)
    throw std::invalid_argument(std::string(kModel) + ": " + name + " is " + std::to_string(value) +
                                ", expected >= 1");
}

/// The shape of every block; TransformerBlock's own checks cover hidden, heads, ffn_mult,
/// dropout and max_micro_batch.
TransformerBlockShape block_shape(const GptShape& shape) {
  return TransformerBlockShape{shape.hidden,          shape.heads,   shape.seq_len, shape.ffn_mult,
                               shape.max_micro_batch, shape.dropout, shape.dtype,   shape.backend};
}

/// Throws std::invalid_argument unless every size is valid (see GptModel); returns the shape.
const GptShape& checked(const GptShape& shape) {
  require_at_least_one("layers", shape.layers);
  require_at_least_one("vocab", shape.vocab);
  require_at_least_one("seq_len", shape.seq_len);
  TransformerBlock::activation_bytes(block_shape(shape));  // throws on the block's sizes
  return shape;
}

std::int64_t max_tokens(const GptShape& shape) {
  return std::int64_t{shape.max_micro_batch} * shape.seq_len;
}

std::int64_t block_floats(const GptShape& shape) {
  return TransformerBlock::parameter_count(shape.hidden, shape.ffn_mult);
}

/// Throws std::invalid_argument naming `name` unless `t` holds `want` floats (`what` says where
/// the count comes from) of `dtype`.
void require_length(const std::string& name, const ops::Tensor& t, std::int64_t want,
                    const char* what, ops::DType dtype = ops::DType::fp32) {
  if (t.numel() != want)
    throw std::invalid_argument(std::string(kModel) + ": " + name + " has " +
                                std::to_string(t.numel()) + " floats, expected " +
                                std::to_string(want) + " (" + what + ")");
  detail::require_type(kModel, name, t, dtype);
}

void require_buffer(const char* name, const ops::Tensor& t, const GptShape& shape,
                    ops::DType dtype = ops::DType::fp32) {
  require_length(name, t, GptModel::parameter_count(shape), "parameter_count", dtype);
}

/// Throws std::invalid_argument naming `name` unless it holds L tensors of one block each.
void require_blocks(const char* name, const std::vector<ops::Tensor>& blocks, const GptShape& shape,
                    ops::DType dtype = ops::DType::fp32) {
  if (blocks.size() != static_cast<std::size_t>(shape.layers))
    throw std::invalid_argument(std::string(kModel) + ": " + name + " has " +
                                std::to_string(blocks.size()) + " spans, expected " +
                                std::to_string(shape.layers) + " (layers)");
  for (std::size_t l = 0; l < blocks.size(); ++l)
    require_length(std::string(name) + "[" + std::to_string(l) + "]", blocks[l],
                   block_floats(shape), "TransformerBlock::parameter_count", dtype);
}

/// Throws std::invalid_argument unless a 16-bit shape comes with working copies of the
/// embeddings and every block (fp32 reads the parameters themselves).
void require_working_copies(const GptShape& shape, const GptBuffers& buffers,
                            const std::vector<std::int64_t>& counts) {
  if (shape.dtype == ops::DType::fp32 && !buffers.embed_compute.defined() &&
      buffers.block_compute.empty())
    return;
  require_length("embed_compute", buffers.embed_compute, counts.front(), "(V + S) H", shape.dtype);
  require_blocks("block_compute", buffers.block_compute, shape, shape.dtype);
}

}  // namespace

std::int64_t GptModel::parameter_count(const GptShape& shape) {
  const std::vector<std::int64_t> counts = unit_parameter_counts(shape);
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

std::vector<std::int64_t> GptModel::unit_parameter_counts(const GptShape& shape) {
  checked(shape);
  const std::int64_t h = shape.hidden;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(shape.layers) + 2, block_floats(shape));
  counts.front() = (std::int64_t{shape.vocab} + shape.seq_len) * h;
  counts.back() = 2 * h;
  return counts;
}

GptBuffers GptModel::flat_windows(const GptShape& shape, const ops::Tensor& params,
                                  const ops::Tensor& grads, const ops::Tensor& compute_params) {
  require_buffer("params", params, shape);
  require_buffer("grads", grads, shape);
  if (compute_params.defined())
    require_buffer("compute_params", compute_params, shape, shape.dtype);
  GptBuffers buffers;
  std::int64_t at = 0;
  const std::vector<std::int64_t> counts = unit_parameter_counts(shape);
  for (std::size_t u = 0; u < counts.size(); ++u) {
    const ops::Tensor p = params.window(at, {counts[u]}), g = grads.window(at, {counts[u]});
    const ops::Tensor c =
        compute_params.defined() ? compute_params.window(at, {counts[u]}) : ops::Tensor();
    at += counts[u];
    if (u == 0) {
      buffers.embed_params = p, buffers.embed_grads = g, buffers.embed_compute = c;
    } else if (u + 1 == counts.size()) {
      buffers.lnf_params = p, buffers.lnf_grads = g;
    } else {
      buffers.block_params.push_back(p);
      buffers.block_grads.push_back(g);
      if (c.defined()) buffers.block_compute.push_back(c);
    }
  }
  return buffers;
}

GptModel::GptModel(const GptShape& shape, const ops::Tensor& params, const ops::Tensor& grads,
                   ops::MemoryLedger& ledger, const ops::Tensor& compute_params)
    : GptModel(shape, flat_windows(shape, params, grads, compute_params), ledger) {}

GptModel::GptModel(const GptShape& shape, const GptBuffers& buffers, ops::MemoryLedger& ledger)
    : m_ops(ledger.backend()), m_shape(checked(shape)) {
  const std::vector<std::int64_t> counts = unit_parameter_counts(shape);
  require_length("embed_params", buffers.embed_params, counts.front(), "(V + S) H");
  require_length("embed_grads", buffers.embed_grads, counts.front(), "(V + S) H");
  require_blocks("block_params", buffers.block_params, shape);
  require_blocks("block_grads", buffers.block_grads, shape);
  require_length("lnf_params", buffers.lnf_params, counts.back(), "2 H");
  require_length("lnf_grads", buffers.lnf_grads, counts.back(), "2 H");
  require_working_copies(shape, buffers, counts);
  const bool fp32 = !buffers.embed_compute.defined();
  const std::int64_t h = shape.hidden, v = shape.vocab, s = shape.seq_len;
  m_wte = buffers.embed_params.window(0, {v, h});
  m_wpe = buffers.embed_params.window(v * h, {s, h});
  m_wte_grad = buffers.embed_grads.window(0, {v, h});
  m_wpe_grad = buffers.embed_grads.window(v * h, {s, h});
  m_wte_compute = fp32 ? m_wte : buffers.embed_compute.window(0, {v, h});
  m_lnf_gamma = buffers.lnf_params.window(0, {h});
  m_lnf_beta = buffers.lnf_params.window(h, {h});
  m_lnf_gamma_grad = buffers.lnf_grads.window(0, {h});
  m_lnf_beta_grad = buffers.lnf_grads.window(h, {h});

  const std::int64_t before = ledger.bytes();
  m_blocks.reserve(static_cast<std::size_t>(shape.layers));
  for (std::size_t l = 0; l < static_cast<std::size_t>(shape.layers); ++l)
    m_blocks.emplace_back(block_shape(shape), buffers.block_params[l], buffers.block_grads[l],
                          ledger, fp32 ? ops::Tensor() : buffers.block_compute[l]);
  const std::int64_t t = max_tokens(shape);
  const ops::DType a = shape.dtype, f32 = ops::DType::fp32;
  for (int l = 0; l <= shape.layers; ++l)
    m_residual.push_back(ledger.make("residual_" + std::to_string(l), a, {t, h}));
  m_lnf_out = ledger.make("lnf_out", a, {t, h});
  m_lnf_mean = ledger.make("lnf_mean", f32, {t});
  m_lnf_rstd = ledger.make("lnf_rstd", f32, {t});
  m_logits = ledger.make("logits", a, {t, v});
  m_grad_a = ledger.make("residual_grad_a", a, {t, h});
  m_grad_b = ledger.make("residual_grad_b", a, {t, h});
  m_d_gamma = ledger.make("lnf_d_gamma", f32, {h});
  m_d_beta = ledger.make("lnf_d_beta", f32, {h});
  m_loss = ledger.make("loss", ops::DType::fp64, {1});
  m_bytes = ledger.bytes() - before;
}

std::int64_t GptModel::activation_bytes(const GptShape& shape) {
  checked(shape);
  const std::int64_t e = static_cast<std::int64_t>(core::dtype_bytes(shape.dtype));
  const std::int64_t t = max_tokens(shape), h = shape.hidden;
  const std::int64_t own =
      e * t * ((std::int64_t{shape.layers} + 4) * h + shape.vocab) + 4 * (2 * t + 2 * h) + 8;
  return own + std::int64_t{shape.layers} * TransformerBlock::activation_bytes(block_shape(shape));
}

void GptModel::check_ids(const GptShape& shape, const char* name,
                         std::span<const std::int32_t> ids) {
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] >= 0 && ids[t] < shape.vocab) continue;
    const auto s = static_cast<std::size_t>(shape.seq_len);
    throw std::invalid_argument(std::string(kModel) + ": " + name + "[" + std::to_string(t) +
                                "] (sample " + std::to_string(t / s) + ", position " +
                                std::to_string(t % s) + ") is " + std::to_string(ids[t]) +
                                ", expected a token id in [0, " + std::to_string(shape.vocab) +
                                ")");
  }
}

ops::Tensor GptModel::rows(const ops::Tensor& buffer, std::int64_t cols) const {
  return buffer.window(0, {tokens(), cols});
}

ops::Tensor GptModel::residual_grad(int n) const {
  return rows(n % 2 == 0 ? m_grad_a : m_grad_b, m_shape.hidden);
}

std::string GptModel::stage_name(int position) const {
  const int l = m_shape.layers;
  if (position <= 0) return "embed_forward";
  if (position <= l) return "block_forward(" + std::to_string(position - 1) + ")";
  if (position == l + 1) return "head_forward_backward";
  if (position <= 2 * l + 1) return "block_backward(" + std::to_string(2 * l + 1 - position) + ")";
  return "embed_backward";
}

void GptModel::require_next(int position) const {
  if (m_done != position - 1)
    throw std::logic_error(std::string(kModel) + "::" + stage_name(position) +
                           " called out of order: the next stage call must be " +
                           stage_name(m_done + 1));
}

int GptModel::checked_layer(const char* call, int layer) const {
  if (layer < 0 || layer >= m_shape.layers)
    throw std::invalid_argument(std::string(kModel) + "::" + call + ": layer is " +
                                std::to_string(layer) + ", expected in [0, " +
                                std::to_string(m_shape.layers) + ")");
  return layer;
}

void GptModel::check_targets(const ops::Tensor& targets, std::int64_t count) const {
  if (targets.rank() != 1 || targets.numel() != count)
    throw std::invalid_argument(std::string(kModel) + ": targets has " +
                                std::to_string(targets.numel()) + " ids, expected " +
                                std::to_string(count) + " (one per token)");
  detail::require_type(kModel, "targets", targets, ops::DType::int32);
}

void GptModel::zero_loss() {
  m_ops.fill(m_loss, 0.0f);
}

double GptModel::forward_backward(const ops::Tensor& tokens, const ops::Tensor& targets,
                                  float loss_scale, const BlockDropout& dropout) {
  check_targets(targets, checked_token_count(tokens));
  check_ids(m_shape, "tokens", ops::download_ints(m_ops, tokens));
  check_ids(m_shape, "targets", ops::download_ints(m_ops, targets));
  zero_loss();
  train_micro_batch(tokens, targets, loss_scale, 1.0f, dropout);
  return ops::download_scalar(m_ops, m_loss);
}

void GptModel::train_micro_batch(const ops::Tensor& tokens, const ops::Tensor& targets,
                                 float loss_scale, float grad_scale, const BlockDropout& dropout) {
  embed_forward(tokens);
  for (int l = 0; l < m_shape.layers; ++l) block_forward(l, dropout);
  head_forward_backward(targets, loss_scale, grad_scale);
  for (int l = m_shape.layers; l-- > 0;) block_backward(l);
  embed_backward();
}

std::int64_t GptModel::checked_token_count(const ops::Tensor& tokens) const {
  const std::int64_t s = m_shape.seq_len, t = tokens.numel();
  if (tokens.rank() != 1 || t == 0 || t % s != 0 || t / s > m_shape.max_micro_batch)
    throw std::invalid_argument(std::string(kModel) + ": tokens has " + std::to_string(t) +
                                " ids, expected B * " + std::to_string(s) +
                                " with 1 <= B <= " + std::to_string(m_shape.max_micro_batch));
  detail::require_type(kModel, "tokens", tokens, ops::DType::int32);
  return t;
}

void GptModel::embed_forward(const ops::Tensor& tokens) {
  checked_token_count(tokens);
  m_tokens = tokens;
  m_ops.token_embedding_forward(m_wte, m_wpe, tokens, rows(m_residual[0], m_shape.hidden));
  m_done = 0;
}

void GptModel::block_forward(int layer, const BlockDropout& dropout) {
  const int position = 1 + checked_layer("block_forward", layer);
  require_next(position);
  const auto l = static_cast<std::size_t>(layer);
  const std::int64_t h = m_shape.hidden;
  m_blocks[l].forward(
      rows(m_residual[l], h), rows(m_residual[l + 1], h),
      BlockDropout{detail::splitmix64(dropout.seed) + l, dropout.step, dropout.first_row});
  m_done = position;
}

void GptModel::head_forward_backward(const ops::Tensor& targets, float loss_scale,
                                     float grad_scale) {
  const int position = m_shape.layers + 1;
  require_next(position);
  check_targets(targets, tokens());
  const std::int64_t h = m_shape.hidden;
  const ops::Tensor x = rows(m_residual.back(), h), dx = residual_grad(0);
  const ops::Tensor lnf_out = rows(m_lnf_out, h);
  const ops::Tensor mean = m_lnf_mean.window(0, {tokens()}),
                    rstd = m_lnf_rstd.window(0, {tokens()});
  m_ops.layer_norm_forward(x, m_lnf_gamma, m_lnf_beta, lnf_out, mean, rstd, kLayerNormEps);
  const ops::Tensor logits = rows(m_logits, m_shape.vocab);
  m_ops.gemm(false, true, 1.0f, lnf_out, m_wte_compute, 0.0f, logits);
  m_ops.softmax_cross_entropy(logits, targets, loss_scale, grad_scale, logits, m_loss);
  // Tied head: d lnf_out = dlogits wte;  d wte += dlogits^T lnf_out.
  m_ops.gemm(false, false, 1.0f, logits, m_wte_compute, 0.0f, dx);
  m_ops.gemm(true, false, 1.0f, logits, lnf_out, 1.0f, m_wte_grad);
  m_ops.layer_norm_backward(x, m_lnf_gamma, dx, mean, rstd, dx, m_d_gamma, m_d_beta);
  m_ops.add(m_d_gamma, m_lnf_gamma_grad);
  m_ops.add(m_d_beta, m_lnf_beta_grad);
  m_done = position;
}

void GptModel::block_backward(int layer) {
  const int position = 2 * m_shape.layers + 1 - checked_layer("block_backward", layer);
  require_next(position);
  const int done = m_shape.layers - 1 - layer;  // block backwards before this one
  m_blocks[static_cast<std::size_t>(layer)].backward(residual_grad(done), residual_grad(done + 1));
  m_done = position;
}

void GptModel::embed_backward() {
  require_next(2 * m_shape.layers + 2);
  m_ops.token_embedding_backward(residual_grad(m_shape.layers), m_tokens, m_wte_grad, m_wpe_grad);
  m_done = -1;
}

}  // namespace scaletune::kernels
