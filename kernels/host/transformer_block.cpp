#include "transformer_block.hpp"

#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/dropout.hpp"
#include "kernels/host/gelu.hpp"
#include "kernels/host/head_layout.hpp"
#include "kernels/host/layer_norm.hpp"
#include "kernels/host/linear.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kBlock = "TransformerBlock";

void require_at_least_one(const char* name, int value) {
  if (value < 1)
    throw std::invalid_argument(std::string(kBlock) + ": " + name + " is " + std::to_string(value) +
                                ", expected >= 1");
}

/// Throws std::invalid_argument unless every size is >= 1, heads divides hidden and dropout_p
/// is in [0, 1); returns the shape.
const TransformerBlockShape& checked(const TransformerBlockShape& shape) {
  require_at_least_one("hidden", shape.hidden);
  require_at_least_one("heads", shape.heads);
  require_at_least_one("seq_len", shape.seq_len);
  require_at_least_one("ffn_mult", shape.ffn_mult);
  require_at_least_one("max_micro_batch", shape.max_micro_batch);
  if (shape.hidden % shape.heads != 0)
    throw std::invalid_argument(std::string(kBlock) + ": hidden is " +
                                std::to_string(shape.hidden) + ", expected a multiple of heads " +
                                std::to_string(shape.heads));
  if (!(shape.dropout_p >= 0.0f && shape.dropout_p < 1.0f))
    throw std::invalid_argument(std::string(kBlock) + ": dropout_p is " +
                                std::to_string(shape.dropout_p) + ", expected in [0, 1)");
  return shape;
}

/// Floats of the activation arena (see TransformerBlock::activation_bytes).
std::size_t arena_floats(const TransformerBlockShape& shape) {
  const auto tokens = static_cast<std::size_t>(shape.max_micro_batch) * shape.seq_len;
  const auto hidden = static_cast<std::size_t>(shape.hidden);
  const std::size_t ffn = hidden * static_cast<std::size_t>(shape.ffn_mult);
  return tokens * (16 * hidden + 3 * ffn + 4) + 2 * hidden;
}

void require_buffer(const char* name, std::span<float> buffer, std::int64_t want) {
  if (static_cast<std::int64_t>(buffer.size()) != want)
    throw std::invalid_argument(std::string(kBlock) + ": " + name + " has " +
                                std::to_string(buffer.size()) + " floats, expected " +
                                std::to_string(want) + " (parameter_count)");
}

/// dst += src element-wise over the flat span (both [n] or [N, F] of equal size).
template <class ViewType>
void add_into(const ViewType& src, const ViewType& dst) {
  const float* s = src.data();
  float* d = dst.data();
  Kokkos::parallel_for("add_into", detail::host_range(dst.size()),
                       [=](std::size_t i) { d[i] += s[i]; });
}

}  // namespace

std::int64_t TransformerBlock::parameter_count(int hidden, int ffn_mult) {
  require_at_least_one("hidden", hidden);
  require_at_least_one("ffn_mult", ffn_mult);
  const std::int64_t h = hidden, f = std::int64_t{ffn_mult} * hidden;
  return 4 * h * h + 2 * f * h + 9 * h + f;
}

std::int64_t TransformerBlock::activation_bytes(const TransformerBlockShape& shape) {
  checked(shape);
  const auto arena_bytes = static_cast<std::int64_t>(arena_floats(shape) * sizeof(float));
  return arena_bytes + AttentionWorkspace::bytes(static_cast<std::size_t>(shape.max_micro_batch),
                                                 static_cast<std::size_t>(shape.heads),
                                                 static_cast<std::size_t>(shape.seq_len));
}

TransformerBlock::Weights TransformerBlock::windows(const TransformerBlockShape& shape,
                                                    float* base) {
  const auto h = static_cast<std::size_t>(shape.hidden);
  const std::size_t f = h * static_cast<std::size_t>(shape.ffn_mult);
  float* next = base;
  const auto vec = [&](std::size_t n) {
    const Vector window(next, n);
    next += n;
    return window;
  };
  const auto mat = [&](std::size_t rows, std::size_t cols) {
    const Tensor2 window(next, rows, cols);
    next += rows * cols;
    return window;
  };
  Weights w;
  w.ln1_gamma = vec(h);
  w.ln1_beta = vec(h);
  w.qkv_w = mat(3 * h, h);
  w.qkv_b = vec(3 * h);
  w.proj_w = mat(h, h);
  w.proj_b = vec(h);
  w.ln2_gamma = vec(h);
  w.ln2_beta = vec(h);
  w.fc1_w = mat(f, h);
  w.fc1_b = vec(f);
  w.fc2_w = mat(h, f);
  w.fc2_b = vec(h);
  return w;
}

TransformerBlock::TransformerBlock(const TransformerBlockShape& shape, std::span<float> params,
                                   std::span<float> grads)
    : m_shape(checked(shape)) {
  const std::int64_t count = parameter_count(shape.hidden, shape.ffn_mult);
  require_buffer("params", params, count);
  require_buffer("grads", grads, count);
  m_params = windows(m_shape, params.data());
  m_grads = windows(m_shape, grads.data());
  const auto batch = static_cast<std::size_t>(shape.max_micro_batch);
  const auto seq = static_cast<std::size_t>(shape.seq_len);
  const std::size_t tokens = batch * seq, h = hidden(), f = ffn();
  m_arena = Vector("transformer_block_activations", arena_floats(m_shape));
  std::size_t used = 0;
  const auto take = [&](std::size_t n) {
    if (used + n > m_arena.extent(0))
      throw std::logic_error("TransformerBlock: activation windows exceed the arena");
    const Vector window(m_arena.data() + used, n);
    used += n;
    return window;
  };
  m_ln1_out = take(tokens * h);
  m_ln1_mean = take(tokens);
  m_ln1_rstd = take(tokens);
  m_q = take(tokens * h);
  m_k = take(tokens * h);
  m_v = take(tokens * h);
  m_merged = take(tokens * h);
  m_h = take(tokens * h);
  m_ln2_out = take(tokens * h);
  m_ln2_mean = take(tokens);
  m_ln2_rstd = take(tokens);
  m_fc1_out = take(tokens * f);
  m_gelu_out = take(tokens * f);
  m_qkv = take(tokens * 3 * h);
  m_heads = take(tokens * h);
  m_d_hidden = take(tokens * h);
  m_d_merged = take(tokens * h);
  m_d_ffn = take(tokens * f);
  m_dq = take(tokens * h);
  m_dk = take(tokens * h);
  m_dv = take(tokens * h);
  m_d_gamma = take(h);
  m_d_beta = take(h);
  m_attention = AttentionWorkspace(batch, static_cast<std::size_t>(shape.heads), seq);
}

std::int64_t TransformerBlock::activation_bytes() const {
  const std::size_t floats = m_arena.span() + m_attention.probs.span() + m_attention.dprobs.span();
  return static_cast<std::int64_t>(floats * sizeof(float));
}

std::size_t TransformerBlock::hidden() const {
  return static_cast<std::size_t>(m_shape.hidden);
}

std::size_t TransformerBlock::ffn() const {
  return hidden() * static_cast<std::size_t>(m_shape.ffn_mult);
}

Tensor2 TransformerBlock::rows(const Vector& buffer, std::size_t cols) const {
  return Tensor2(buffer.data(), m_input.extent(0), cols);
}

Vector TransformerBlock::per_token(const Vector& buffer) const {
  return Vector(buffer.data(), m_input.extent(0));
}

Tensor4 TransformerBlock::per_head(const Vector& buffer) const {
  const auto seq = static_cast<std::size_t>(m_shape.seq_len);
  const auto n_heads = static_cast<std::size_t>(m_shape.heads);
  return Tensor4(buffer.data(), m_input.extent(0) / seq, n_heads, seq, hidden() / n_heads);
}

AttentionWorkspace TransformerBlock::attention_view() const {
  const Tensor4& all = m_attention.probs;
  AttentionWorkspace ws;
  ws.probs = Tensor4(all.data(), m_input.extent(0) / all.extent(2), all.extent(1), all.extent(2),
                     all.extent(3));
  ws.dprobs = m_attention.dprobs;
  return ws;
}

DropoutMask TransformerBlock::mask(std::uint64_t site) const {
  return DropoutMask{m_shape.dropout_p, 2 * m_dropout.seed + site, m_dropout.step,
                     m_dropout.first_row};
}

void TransformerBlock::apply_dropout(const Tensor2& branch, std::uint64_t site) const {
  if (m_shape.dropout_p > 0.0f) dropout_forward(branch, mask(site), branch);
}

Tensor2 TransformerBlock::through_dropout(const Tensor2& grad, std::uint64_t site,
                                          const Tensor2& scratch) const {
  if (m_shape.dropout_p == 0.0f) return grad;
  dropout_backward(grad, mask(site), scratch);
  return scratch;
}

void TransformerBlock::forward(const Tensor2& x, const Tensor2& y, const BlockDropout& dropout) {
  constexpr const char* kOp = "TransformerBlock::forward";
  const std::size_t tokens = x.extent(0);
  const auto seq = static_cast<std::size_t>(m_shape.seq_len);
  const std::size_t max_tokens = seq * static_cast<std::size_t>(m_shape.max_micro_batch);
  if (x.extent(1) != hidden() || tokens == 0 || tokens % seq != 0 || tokens > max_tokens)
    throw std::invalid_argument(std::string(kOp) + ": x is " + detail::shape_string(x, 2) +
                                ", expected [B * " + std::to_string(seq) + ", " +
                                std::to_string(hidden()) + "] with 1 <= B <= max_micro_batch " +
                                std::to_string(m_shape.max_micro_batch));
  detail::require_contiguous(kOp, "x", x);
  detail::require_shape(kOp, "y", y, {tokens, hidden()});
  detail::require_contiguous(kOp, "y", y);
  detail::require_distinct(kOp, "x", x, "y", y);
  if (dropout.first_row < 0)
    throw std::invalid_argument(std::string(kOp) + ": dropout.first_row is " +
                                std::to_string(dropout.first_row) + ", expected >= 0");
  m_input = x;
  m_dropout = dropout;
  attention_forward_branch(x);
  mlp_forward_branch(y);
}

void TransformerBlock::attention_forward_branch(const Tensor2& x) {
  const std::size_t h = hidden();
  const Tensor2 ln1 = rows(m_ln1_out, h);
  layer_norm_forward(x, m_params.ln1_gamma, m_params.ln1_beta, ln1, per_token(m_ln1_mean),
                     per_token(m_ln1_rstd));
  const Tensor2 qkv = rows(m_qkv, 3 * h);
  linear_forward(ln1, m_params.qkv_w, m_params.qkv_b, qkv);
  rows_to_heads(qkv.data(), 3 * h, per_head(m_q));
  rows_to_heads(qkv.data() + h, 3 * h, per_head(m_k));
  rows_to_heads(qkv.data() + 2 * h, 3 * h, per_head(m_v));
  attention_forward(per_head(m_q), per_head(m_k), per_head(m_v), attention_view(),
                    per_head(m_heads));
  heads_to_rows(per_head(m_heads), m_merged.data(), h);
  const Tensor2 residual = rows(m_h, h);
  linear_forward(rows(m_merged, h), m_params.proj_w, m_params.proj_b, residual);
  apply_dropout(residual, 0);
  add_into(x, residual);
}

void TransformerBlock::mlp_forward_branch(const Tensor2& y) {
  const Tensor2 residual = rows(m_h, hidden());
  const Tensor2 ln2 = rows(m_ln2_out, hidden());
  layer_norm_forward(residual, m_params.ln2_gamma, m_params.ln2_beta, ln2, per_token(m_ln2_mean),
                     per_token(m_ln2_rstd));
  const Tensor2 fc1 = rows(m_fc1_out, ffn());
  linear_forward(ln2, m_params.fc1_w, m_params.fc1_b, fc1);
  const Tensor2 activated = rows(m_gelu_out, ffn());
  gelu_forward(fc1, activated);
  linear_forward(activated, m_params.fc2_w, m_params.fc2_b, y);
  apply_dropout(y, 1);
  add_into(residual, y);
}

void TransformerBlock::backward(const Tensor2& dy, const Tensor2& dx) {
  constexpr const char* kOp = "TransformerBlock::backward";
  if (m_input.extent(1) == 0)
    throw std::invalid_argument(std::string(kOp) + ": called before forward");
  const std::size_t tokens = m_input.extent(0);
  detail::require_shape(kOp, "dy", dy, {tokens, hidden()});
  detail::require_contiguous(kOp, "dy", dy);
  detail::require_shape(kOp, "dx", dx, {tokens, hidden()});
  detail::require_contiguous(kOp, "dx", dx);
  detail::require_distinct(kOp, "x", m_input, "dx", dx);
  detail::require_distinct(kOp, "dy", dy, "dx", dx);
  mlp_backward_branch(dy, dx);
  attention_backward_branch(dx);
}

void TransformerBlock::mlp_backward_branch(const Tensor2& dy, const Tensor2& dx) {
  const std::size_t h = hidden();
  const Tensor2 d_fc2 = through_dropout(dy, 1, rows(m_d_hidden, h));
  const Tensor2 d_ffn = rows(m_d_ffn, ffn());
  linear_backward(rows(m_gelu_out, ffn()), m_params.fc2_w, d_fc2, m_grads.fc2_w, m_grads.fc2_b,
                  d_ffn, GradMode::accumulate);
  gelu_backward(rows(m_fc1_out, ffn()), d_ffn, d_ffn);
  const Tensor2 d_ln2 = rows(m_d_hidden, h);
  linear_backward(rows(m_ln2_out, h), m_params.fc1_w, d_ffn, m_grads.fc1_w, m_grads.fc1_b, d_ln2,
                  GradMode::accumulate);
  layer_norm_backward(rows(m_h, h), m_params.ln2_gamma, d_ln2, per_token(m_ln2_mean),
                      per_token(m_ln2_rstd), dx, m_d_gamma, m_d_beta);
  add_layer_norm_grads(m_grads.ln2_gamma, m_grads.ln2_beta);
  add_into(dy, dx);  // the residual path: dx = d loss / d h
}

void TransformerBlock::attention_backward_branch(const Tensor2& dx) {
  const std::size_t h = hidden();
  const Tensor2 d_proj = through_dropout(dx, 0, rows(m_d_hidden, h));
  const Tensor2 d_merged = rows(m_d_merged, h);
  linear_backward(rows(m_merged, h), m_params.proj_w, d_proj, m_grads.proj_w, m_grads.proj_b,
                  d_merged, GradMode::accumulate);
  rows_to_heads(d_merged.data(), h, per_head(m_heads));
  attention_backward(per_head(m_q), per_head(m_k), per_head(m_v), per_head(m_heads),
                     attention_view(), per_head(m_dq), per_head(m_dk), per_head(m_dv));
  const Tensor2 d_qkv = rows(m_qkv, 3 * h);
  heads_to_rows(per_head(m_dq), d_qkv.data(), 3 * h);
  heads_to_rows(per_head(m_dk), d_qkv.data() + h, 3 * h);
  heads_to_rows(per_head(m_dv), d_qkv.data() + 2 * h, 3 * h);
  const Tensor2 d_ln1 = rows(m_d_hidden, h);
  linear_backward(rows(m_ln1_out, h), m_params.qkv_w, d_qkv, m_grads.qkv_w, m_grads.qkv_b, d_ln1,
                  GradMode::accumulate);
  layer_norm_backward(m_input, m_params.ln1_gamma, d_ln1, per_token(m_ln1_mean),
                      per_token(m_ln1_rstd), d_ln1, m_d_gamma, m_d_beta);
  add_layer_norm_grads(m_grads.ln1_gamma, m_grads.ln1_beta);
  add_into(d_ln1, dx);  // the residual path: dx = d loss / d x
}

void TransformerBlock::add_layer_norm_grads(const Vector& gamma_grad,
                                            const Vector& beta_grad) const {
  add_into(m_d_gamma, gamma_grad);
  add_into(m_d_beta, beta_grad);
}

}  // namespace scaletune::kernels
