#include "gpt_model.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/splitmix64.hpp"
#include "kernels/host/gemm.hpp"
#include "kernels/host/layer_norm.hpp"
#include "kernels/host/loss.hpp"
#include "kernels/host/token_embedding.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kModel = "GptModel";

void require_at_least_one(const char* name, int value) {
  if (value < 1)
    throw std::invalid_argument(std::string(kModel) + ": " + name + " is " + std::to_string(value) +
                                ", expected >= 1");
}

/// The shape of every block; TransformerBlock's own checks cover hidden, heads, ffn_mult,
/// dropout and max_micro_batch.
TransformerBlockShape block_shape(const GptShape& shape) {
  return TransformerBlockShape{shape.hidden,   shape.heads,           shape.seq_len,
                               shape.ffn_mult, shape.max_micro_batch, shape.dropout};
}

/// Throws std::invalid_argument unless every size is valid (see GptModel); returns the shape.
const GptShape& checked(const GptShape& shape) {
  require_at_least_one("layers", shape.layers);
  require_at_least_one("vocab", shape.vocab);
  require_at_least_one("seq_len", shape.seq_len);
  TransformerBlock::activation_bytes(block_shape(shape));  // throws on the block's sizes
  return shape;
}

std::size_t size(int value) {
  return static_cast<std::size_t>(value);
}

std::size_t max_tokens(const GptShape& shape) {
  return size(shape.max_micro_batch) * size(shape.seq_len);
}

/// Floats of the model's own arena (see GptModel::activation_bytes).
std::size_t arena_floats(const GptShape& shape) {
  const std::size_t h = size(shape.hidden);
  return max_tokens(shape) * ((size(shape.layers) + 4) * h + size(shape.vocab) + 2) + 2 * h;
}

std::size_t block_floats(const GptShape& shape) {
  return static_cast<std::size_t>(TransformerBlock::parameter_count(shape.hidden, shape.ffn_mult));
}

/// Throws std::invalid_argument naming `name` unless `buffer` holds `want` floats (`what` says
/// where the count comes from).
void require_length(const std::string& name, std::span<float> buffer, std::int64_t want,
                    const char* what) {
  if (static_cast<std::int64_t>(buffer.size()) != want)
    throw std::invalid_argument(std::string(kModel) + ": " + name + " has " +
                                std::to_string(buffer.size()) + " floats, expected " +
                                std::to_string(want) + " (" + what + ")");
}

void require_buffer(const char* name, std::span<float> buffer, const GptShape& shape) {
  require_length(name, buffer, GptModel::parameter_count(shape), "parameter_count");
}

/// Throws std::invalid_argument naming `name` unless it holds L spans of one block each.
void require_blocks(const char* name, const std::vector<std::span<float>>& spans,
                    const GptShape& shape) {
  if (spans.size() != size(shape.layers))
    throw std::invalid_argument(std::string(kModel) + ": " + name + " has " +
                                std::to_string(spans.size()) + " spans, expected " +
                                std::to_string(shape.layers) + " (layers)");
  const auto want = static_cast<std::int64_t>(block_floats(shape));
  for (std::size_t l = 0; l < spans.size(); ++l)
    require_length(std::string(name) + "[" + std::to_string(l) + "]", spans[l], want,
                   "TransformerBlock::parameter_count");
}

/// Throws std::invalid_argument naming `name`, the index, sample and position of the first id
/// outside [0, vocab).
void require_ids(const char* name, const Labels& ids, int vocab, int seq_len) {
  for (std::size_t t = 0; t < ids.extent(0); ++t) {
    if (ids(t) >= 0 && ids(t) < vocab) continue;
    throw std::invalid_argument(std::string(kModel) + ": " + name + "[" + std::to_string(t) +
                                "] (sample " + std::to_string(t / size(seq_len)) + ", position " +
                                std::to_string(t % size(seq_len)) + ") is " +
                                std::to_string(ids(t)) + ", expected a token id in [0, " +
                                std::to_string(vocab) + ")");
  }
}

}  // namespace

std::int64_t GptModel::parameter_count(const GptShape& shape) {
  const std::vector<std::int64_t> counts = unit_parameter_counts(shape);
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

std::vector<std::int64_t> GptModel::unit_parameter_counts(const GptShape& shape) {
  checked(shape);
  const std::int64_t h = shape.hidden;
  std::vector<std::int64_t> counts(size(shape.layers) + 2,
                                   TransformerBlock::parameter_count(shape.hidden, shape.ffn_mult));
  counts.front() = (std::int64_t{shape.vocab} + shape.seq_len) * h;
  counts.back() = 2 * h;
  return counts;
}

GptBuffers GptModel::flat_windows(const GptShape& shape, std::span<float> params,
                                  std::span<float> grads) {
  require_buffer("params", params, shape);
  require_buffer("grads", grads, shape);
  std::vector<std::span<float>> param_units, grad_units;
  std::size_t at = 0;
  for (const std::int64_t count : unit_parameter_counts(shape)) {
    const auto n = static_cast<std::size_t>(count);
    param_units.push_back(params.subspan(at, n));
    grad_units.push_back(grads.subspan(at, n));
    at += n;
  }
  return GptBuffers{param_units.front(),
                    grad_units.front(),
                    {param_units.begin() + 1, param_units.end() - 1},
                    {grad_units.begin() + 1, grad_units.end() - 1},
                    param_units.back(),
                    grad_units.back()};
}

GptModel::GptModel(const GptShape& shape, std::span<float> params, std::span<float> grads)
    : GptModel(shape, flat_windows(shape, params, grads)) {}

GptModel::GptModel(const GptShape& shape, const GptBuffers& buffers) : m_shape(checked(shape)) {
  const std::vector<std::int64_t> counts = unit_parameter_counts(shape);
  require_length("embed_params", buffers.embed_params, counts.front(), "(V + S) H");
  require_length("embed_grads", buffers.embed_grads, counts.front(), "(V + S) H");
  require_blocks("block_params", buffers.block_params, shape);
  require_blocks("block_grads", buffers.block_grads, shape);
  require_length("lnf_params", buffers.lnf_params, counts.back(), "2 H");
  require_length("lnf_grads", buffers.lnf_grads, counts.back(), "2 H");
  const std::size_t h = size(shape.hidden), v = size(shape.vocab), s = size(shape.seq_len);
  m_wte = Tensor2(buffers.embed_params.data(), v, h);
  m_wpe = Tensor2(buffers.embed_params.data() + v * h, s, h);
  m_wte_grad = Tensor2(buffers.embed_grads.data(), v, h);
  m_wpe_grad = Tensor2(buffers.embed_grads.data() + v * h, s, h);
  m_blocks.reserve(size(shape.layers));
  for (std::size_t l = 0; l < size(shape.layers); ++l)
    m_blocks.emplace_back(block_shape(shape), buffers.block_params[l], buffers.block_grads[l]);
  m_lnf_gamma = Vector(buffers.lnf_params.data(), h);
  m_lnf_beta = Vector(buffers.lnf_params.data() + h, h);
  m_lnf_gamma_grad = Vector(buffers.lnf_grads.data(), h);
  m_lnf_beta_grad = Vector(buffers.lnf_grads.data() + h, h);

  const std::size_t tokens = max_tokens(shape);
  m_arena = Vector("gpt_model_activations", arena_floats(shape));
  std::size_t used = 0;
  const auto take = [&](std::size_t n) {
    if (used + n > m_arena.extent(0))
      throw std::logic_error("GptModel: activation windows exceed the arena");
    const Vector window(m_arena.data() + used, n);
    used += n;
    return window;
  };
  for (int l = 0; l <= shape.layers; ++l) m_residual.push_back(take(tokens * h));
  m_lnf_out = take(tokens * h);
  m_lnf_mean = take(tokens);
  m_lnf_rstd = take(tokens);
  m_logits = take(tokens * v);
  m_grad_a = take(tokens * h);
  m_grad_b = take(tokens * h);
  m_d_gamma = take(h);
  m_d_beta = take(h);
}

std::int64_t GptModel::activation_bytes() const {
  std::int64_t bytes = static_cast<std::int64_t>(m_arena.span() * sizeof(float));
  for (const TransformerBlock& block : m_blocks) bytes += block.activation_bytes();
  return bytes;
}

std::int64_t GptModel::activation_bytes(const GptShape& shape) {
  checked(shape);
  return static_cast<std::int64_t>(arena_floats(shape) * sizeof(float)) +
         std::int64_t{shape.layers} * TransformerBlock::activation_bytes(block_shape(shape));
}

Tensor2 GptModel::rows(const Vector& buffer, std::size_t cols) const {
  return Tensor2(buffer.data(), m_tokens.extent(0), cols);
}

Tensor2 GptModel::residual_grad(int n) const {
  return rows(n % 2 == 0 ? m_grad_a : m_grad_b, size(m_shape.hidden));
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

void GptModel::check_targets(const Labels& targets) const {
  if (targets.extent(0) != m_tokens.extent(0))
    throw std::invalid_argument(std::string(kModel) + ": targets has " +
                                std::to_string(targets.extent(0)) + " ids, expected " +
                                std::to_string(m_tokens.extent(0)) + " (one per token)");
  require_ids("targets", targets, m_shape.vocab, m_shape.seq_len);
}

void GptModel::embed_forward(const Labels& tokens) {
  const std::size_t t = tokens.extent(0), s = size(m_shape.seq_len);
  if (t == 0 || t % s != 0 || t / s > size(m_shape.max_micro_batch))
    throw std::invalid_argument(std::string(kModel) + ": tokens has " + std::to_string(t) +
                                " ids, expected B * " + std::to_string(s) +
                                " with 1 <= B <= " + std::to_string(m_shape.max_micro_batch));
  require_ids("tokens", tokens, m_shape.vocab, m_shape.seq_len);
  m_tokens = tokens;
  token_embedding_forward(m_wte, m_wpe, tokens, rows(m_residual[0], size(m_shape.hidden)));
  m_done = 0;
}

void GptModel::block_forward(int layer, const BlockDropout& dropout) {
  const int position = 1 + checked_layer("block_forward", layer);
  require_next(position);
  const std::size_t l = size(layer), h = size(m_shape.hidden);
  m_blocks[l].forward(
      rows(m_residual[l], h), rows(m_residual[l + 1], h),
      BlockDropout{detail::splitmix64(dropout.seed) + l, dropout.step, dropout.first_row});
  m_done = position;
}

double GptModel::head_forward_backward(const Labels& targets, float loss_scale) {
  const int position = m_shape.layers + 1;
  require_next(position);
  check_targets(targets);
  const std::size_t tokens = m_tokens.extent(0);
  const int t = static_cast<int>(tokens), h = m_shape.hidden, v = m_shape.vocab;
  const Tensor2 x = rows(m_residual.back(), size(h)), dx = residual_grad(0);
  const Tensor2 lnf_out = rows(m_lnf_out, size(h));
  const Vector mean(m_lnf_mean.data(), tokens), rstd(m_lnf_rstd.data(), tokens);
  layer_norm_forward(x, m_lnf_gamma, m_lnf_beta, lnf_out, mean, rstd);
  const Tensor2 logits = rows(m_logits, size(v));
  gemm(false, true, t, v, h, 1.0f, lnf_out.data(), h, m_wte.data(), h, 0.0f, logits.data(), v);
  const double loss = softmax_cross_entropy(logits, targets, loss_scale, logits);
  // Tied head: d lnf_out = dlogits wte;  d wte += dlogits^T lnf_out.
  gemm(false, false, t, h, v, 1.0f, logits.data(), v, m_wte.data(), h, 0.0f, dx.data(), h);
  gemm(true, false, v, h, t, 1.0f, logits.data(), v, lnf_out.data(), h, 1.0f, m_wte_grad.data(), h);
  layer_norm_backward(x, m_lnf_gamma, dx, mean, rstd, dx, m_d_gamma, m_d_beta);
  for (std::size_t c = 0; c < size(h); ++c) {
    m_lnf_gamma_grad(c) += m_d_gamma(c);
    m_lnf_beta_grad(c) += m_d_beta(c);
  }
  m_done = position;
  return loss;
}

void GptModel::block_backward(int layer) {
  const int position = 2 * m_shape.layers + 1 - checked_layer("block_backward", layer);
  require_next(position);
  const int done = m_shape.layers - 1 - layer;  // block backwards before this one
  m_blocks[size(layer)].backward(residual_grad(done), residual_grad(done + 1));
  m_done = position;
}

void GptModel::embed_backward() {
  require_next(2 * m_shape.layers + 2);
  token_embedding_backward(residual_grad(m_shape.layers), m_tokens, m_wte_grad, m_wpe_grad);
  m_done = -1;
}

double GptModel::forward_backward(const Labels& tokens, const Labels& targets, float loss_scale,
                                  const BlockDropout& dropout) {
  embed_forward(tokens);
  for (int l = 0; l < m_shape.layers; ++l) block_forward(l, dropout);
  const double loss = head_forward_backward(targets, loss_scale);
  for (int l = m_shape.layers; l-- > 0;) block_backward(l);
  embed_backward();
  return loss;
}

}  // namespace scaletune::kernels
