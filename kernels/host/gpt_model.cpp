#include "gpt_model.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/host/detail/splitmix64.hpp"
#include "kernels/host/gemm.hpp"
#include "kernels/host/layer_norm.hpp"
#include "kernels/host/loss.hpp"

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

void require_buffer(const char* name, std::span<float> buffer, const GptShape& shape) {
  const std::int64_t want = GptModel::parameter_count(shape);
  if (static_cast<std::int64_t>(buffer.size()) != want)
    throw std::invalid_argument(std::string(kModel) + ": " + name + " has " +
                                std::to_string(buffer.size()) + " floats, expected " +
                                std::to_string(want) + " (parameter_count)");
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

/// Fills `count` floats at `out` with normal(0, std_dev) draws.
void fill_normal(std::mt19937_64& rng, float std_dev, float* out, std::size_t count) {
  std::normal_distribution<float> normal(0.0f, std_dev);
  for (std::size_t i = 0; i < count; ++i) out[i] = normal(rng);
}

/// One block in TransformerBlock's layout: ln1 gamma, ln1 beta, qkv w, qkv b, proj w, proj b,
/// ln2 gamma, ln2 beta, fc1 w, fc1 b, fc2 w, fc2 b. Returns the floats written.
std::size_t init_block(const GptShape& shape, std::mt19937_64& rng, float* out) {
  const std::size_t h = size(shape.hidden), f = h * size(shape.ffn_mult);
  const float weight_std = 0.02f;
  const auto residual_std = static_cast<float>(0.02 / std::sqrt(2.0 * shape.layers));
  std::size_t at = 0;
  const auto constant = [&](std::size_t n, float value) {
    std::fill(out + at, out + at + n, value);
    at += n;
  };
  const auto normal = [&](std::size_t n, float std_dev) {
    fill_normal(rng, std_dev, out + at, n);
    at += n;
  };
  constant(h, 1.0f), constant(h, 0.0f);  // ln1
  normal(3 * h * h, weight_std), constant(3 * h, 0.0f);
  normal(h * h, residual_std), constant(h, 0.0f);
  constant(h, 1.0f), constant(h, 0.0f);  // ln2
  normal(f * h, weight_std), constant(f, 0.0f);
  normal(h * f, residual_std), constant(h, 0.0f);
  return at;
}

}  // namespace

std::int64_t GptModel::parameter_count(const GptShape& shape) {
  checked(shape);
  const std::int64_t h = shape.hidden;
  return std::int64_t{shape.vocab} * h + std::int64_t{shape.seq_len} * h +
         std::int64_t{shape.layers} *
             TransformerBlock::parameter_count(shape.hidden, shape.ffn_mult) +
         2 * h;
}

void init_gpt_parameters(const GptShape& shape, std::uint64_t seed, std::span<float> params) {
  require_buffer("params", params, shape);
  std::mt19937_64 rng(seed);
  const std::size_t h = size(shape.hidden);
  float* out = params.data();
  const std::size_t embeddings = (size(shape.vocab) + size(shape.seq_len)) * h;
  fill_normal(rng, 0.02f, out, embeddings);  // wte then wpe
  out += embeddings;
  for (int l = 0; l < shape.layers; ++l) out += init_block(shape, rng, out);
  std::fill(out, out + h, 1.0f);  // ln_f gamma
  std::fill(out + h, out + 2 * h, 0.0f);
}

GptModel::GptModel(const GptShape& shape, std::span<float> params, std::span<float> grads)
    : m_shape(checked(shape)) {
  require_buffer("params", params, shape);
  require_buffer("grads", grads, shape);
  const std::size_t h = size(shape.hidden), v = size(shape.vocab), s = size(shape.seq_len);
  m_wte = Tensor2(params.data(), v, h);
  m_wpe = Tensor2(params.data() + v * h, s, h);
  m_wte_grad = Tensor2(grads.data(), v, h);
  m_wpe_grad = Tensor2(grads.data() + v * h, s, h);
  std::size_t at = (v + s) * h;
  m_blocks.reserve(size(shape.layers));
  for (int l = 0; l < shape.layers; ++l, at += block_floats(shape))
    m_blocks.emplace_back(block_shape(shape), params.subspan(at, block_floats(shape)),
                          grads.subspan(at, block_floats(shape)));
  m_lnf_gamma = Vector(params.data() + at, h);
  m_lnf_beta = Vector(params.data() + at + h, h);
  m_lnf_gamma_grad = Vector(grads.data() + at, h);
  m_lnf_beta_grad = Vector(grads.data() + at + h, h);

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

Tensor2 GptModel::rows(const Vector& buffer, std::size_t tokens, std::size_t cols) const {
  return Tensor2(buffer.data(), tokens, cols);
}

std::size_t GptModel::checked_tokens(const Labels& tokens, const Labels& targets) const {
  const std::size_t t = tokens.extent(0), s = size(m_shape.seq_len);
  if (t == 0 || t % s != 0 || t / s > size(m_shape.max_micro_batch))
    throw std::invalid_argument(std::string(kModel) + ": tokens has " + std::to_string(t) +
                                " ids, expected B * " + std::to_string(s) +
                                " with 1 <= B <= " + std::to_string(m_shape.max_micro_batch));
  if (targets.extent(0) != t)
    throw std::invalid_argument(std::string(kModel) + ": targets has " +
                                std::to_string(targets.extent(0)) + " ids, expected " +
                                std::to_string(t) + " (one per token)");
  require_ids("tokens", tokens, m_shape.vocab, m_shape.seq_len);
  require_ids("targets", targets, m_shape.vocab, m_shape.seq_len);
  return t;
}

void GptModel::embed(const Labels& tokens, const Tensor2& x) const {
  const std::size_t h = x.extent(1), s = size(m_shape.seq_len);
  for (std::size_t t = 0; t < x.extent(0); ++t)
    for (std::size_t c = 0; c < h; ++c) x(t, c) = m_wte(size(tokens(t)), c) + m_wpe(t % s, c);
}

double GptModel::head_forward_backward(const Tensor2& x, const Labels& targets, float loss_scale,
                                       const Tensor2& dx) {
  const std::size_t tokens = x.extent(0);
  const int t = static_cast<int>(tokens), h = m_shape.hidden, v = m_shape.vocab;
  const Tensor2 lnf_out = rows(m_lnf_out, tokens, size(h));
  const Vector mean(m_lnf_mean.data(), tokens), rstd(m_lnf_rstd.data(), tokens);
  layer_norm_forward(x, m_lnf_gamma, m_lnf_beta, lnf_out, mean, rstd);
  const Tensor2 logits = rows(m_logits, tokens, size(v));
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
  return loss;
}

void GptModel::embed_backward(const Labels& tokens, const Tensor2& dx) const {
  const std::size_t h = dx.extent(1), s = size(m_shape.seq_len);
  for (std::size_t t = 0; t < dx.extent(0); ++t)
    for (std::size_t c = 0; c < h; ++c) {
      m_wte_grad(size(tokens(t)), c) += dx(t, c);
      m_wpe_grad(t % s, c) += dx(t, c);
    }
}

double GptModel::forward_backward(const Labels& tokens, const Labels& targets, float loss_scale,
                                  const BlockDropout& dropout) {
  const std::size_t t = checked_tokens(tokens, targets), h = size(m_shape.hidden);
  embed(tokens, rows(m_residual[0], t, h));
  const std::uint64_t block_seed = detail::splitmix64(dropout.seed);
  for (std::size_t l = 0; l < m_blocks.size(); ++l)
    m_blocks[l].forward(rows(m_residual[l], t, h), rows(m_residual[l + 1], t, h),
                        BlockDropout{block_seed + l, dropout.step, dropout.first_row});
  Tensor2 grad = rows(m_grad_a, t, h), other = rows(m_grad_b, t, h);
  const double loss =
      head_forward_backward(rows(m_residual.back(), t, h), targets, loss_scale, grad);
  for (std::size_t l = m_blocks.size(); l-- > 0;) {
    m_blocks[l].backward(grad, other);
    std::swap(grad, other);
  }
  embed_backward(tokens, grad);
  return loss;
}

}  // namespace scaletune::kernels
