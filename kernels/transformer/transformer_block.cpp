#include "kernels/transformer/transformer_block.hpp"

#include <stdexcept>
#include <string>

#include "kernels/transformer/detail/tensor_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kBlock = "TransformerBlock";
constexpr float kLayerNormEps = 1e-5f;

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

/// Throws std::invalid_argument naming `name` unless it holds `want` elements of `dtype`.
void require_buffer(const char* name, const ops::Tensor& t, std::int64_t want, ops::DType dtype) {
  if (t.numel() != want)
    throw std::invalid_argument(std::string(kBlock) + ": " + name + " has " +
                                std::to_string(t.numel()) + " floats, expected " +
                                std::to_string(want) + " (parameter_count)");
  detail::require_type(kBlock, name, t, dtype);
}

/// The working copy the linear layers read: compute_params, or params itself for fp32.
const ops::Tensor& working_copy(const TransformerBlockShape& shape, const ops::Tensor& params,
                                const ops::Tensor& compute_params) {
  if (compute_params.defined() || shape.dtype == ops::DType::fp32)
    return compute_params.defined() ? compute_params : params;
  throw std::invalid_argument(std::string(kBlock) + ": activations of " +
                              std::string(core::dtype_key(shape.dtype)) +
                              " need a working copy of the parameters (compute_params)");
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
  const std::int64_t e = static_cast<std::int64_t>(core::dtype_bytes(shape.dtype));
  const std::int64_t tokens = std::int64_t{shape.max_micro_batch} * shape.seq_len;
  const std::int64_t h = shape.hidden, f = h * shape.ffn_mult, s = shape.seq_len;
  const std::int64_t probs = s * s * std::int64_t{shape.max_micro_batch} * shape.heads;
  const std::int64_t attention =
      shape.backend == ops::BackendKind::cuda ? 2 * probs : probs + s * s;
  return e * tokens * (16 * h + 3 * f) + 4 * (4 * tokens + 2 * h) + e * attention;
}

TransformerBlock::Weights TransformerBlock::windows(const TransformerBlockShape& shape,
                                                    const ops::Tensor& flat) {
  const std::int64_t h = shape.hidden, f = h * shape.ffn_mult;
  std::int64_t next = 0;
  const auto vec = [&](std::int64_t n) {
    const ops::Tensor window = flat.window(next, {n});
    next += n;
    return window;
  };
  const auto mat = [&](std::int64_t rows, std::int64_t cols) {
    const ops::Tensor window = flat.window(next, {rows, cols});
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

TransformerBlock::TransformerBlock(const TransformerBlockShape& shape, const ops::Tensor& params,
                                   const ops::Tensor& grads, ops::MemoryLedger& ledger,
                                   const ops::Tensor& compute_params)
    : m_ops(ledger.backend()), m_shape(checked(shape)) {
  const std::int64_t count = parameter_count(shape.hidden, shape.ffn_mult);
  require_buffer("params", params, count, ops::DType::fp32);
  require_buffer("grads", grads, count, ops::DType::fp32);
  const ops::Tensor& working = working_copy(shape, params, compute_params);
  require_buffer("compute_params", working, count, shape.dtype);
  m_params = windows(m_shape, params);
  m_compute = windows(m_shape, working);
  m_grads = windows(m_shape, grads);
  const std::int64_t before = ledger.bytes();
  const std::int64_t batch = shape.max_micro_batch, seq = shape.seq_len, heads = shape.heads;
  const std::int64_t t = batch * seq, h = hidden(), f = ffn();
  const ops::DType a = shape.dtype, fp32 = ops::DType::fp32;
  const auto per_head_buffer = [&](const char* label) {
    return ledger.make(label, a, {batch, heads, seq, h / heads});
  };
  m_ln1_out = ledger.make("ln1_out", a, {t, h});
  m_ln1_mean = ledger.make("ln1_mean", fp32, {t});
  m_ln1_rstd = ledger.make("ln1_rstd", fp32, {t});
  m_q = per_head_buffer("q");
  m_k = per_head_buffer("k");
  m_v = per_head_buffer("v");
  m_merged = ledger.make("attention_merged", a, {t, h});
  m_h = ledger.make("residual_h", a, {t, h});
  m_ln2_out = ledger.make("ln2_out", a, {t, h});
  m_ln2_mean = ledger.make("ln2_mean", fp32, {t});
  m_ln2_rstd = ledger.make("ln2_rstd", fp32, {t});
  m_fc1_out = ledger.make("fc1_out", a, {t, f});
  m_gelu_out = ledger.make("gelu_out", a, {t, f});
  m_qkv = ledger.make("qkv", a, {t, 3 * h});
  m_heads = per_head_buffer("heads");
  m_d_hidden = ledger.make("d_hidden", a, {t, h});
  m_d_merged = ledger.make("d_merged", a, {t, h});
  m_d_ffn = ledger.make("d_ffn", a, {t, f});
  m_dq = per_head_buffer("dq");
  m_dk = per_head_buffer("dk");
  m_dv = per_head_buffer("dv");
  m_d_gamma = ledger.make("ln_d_gamma", fp32, {h});
  m_d_beta = ledger.make("ln_d_beta", fp32, {h});
  m_attn = m_ops.make_attention(shape.max_micro_batch, shape.heads, shape.seq_len,
                                static_cast<int>(h / heads), a);
  ledger.count("attention", m_attn->workspace_bytes());
  m_bytes = ledger.bytes() - before;
}

ops::Tensor TransformerBlock::rows(const ops::Tensor& buffer, std::int64_t cols) const {
  return buffer.window(0, {tokens(), cols});
}

ops::Tensor TransformerBlock::per_token(const ops::Tensor& buffer) const {
  return buffer.window(0, {tokens()});
}

ops::Tensor TransformerBlock::per_head(const ops::Tensor& buffer) const {
  return buffer.rows(0, tokens() / m_shape.seq_len);
}

ops::DropoutMask TransformerBlock::mask(std::uint64_t site) const {
  return ops::DropoutMask{m_shape.dropout_p, 2 * m_dropout.seed + site, m_dropout.step,
                          m_dropout.first_row};
}

void TransformerBlock::apply_dropout(const ops::Tensor& branch, std::uint64_t site) {
  if (m_shape.dropout_p > 0.0f) m_ops.dropout_forward(branch, mask(site), branch);
}

ops::Tensor TransformerBlock::through_dropout(const ops::Tensor& grad, std::uint64_t site,
                                              const ops::Tensor& scratch) {
  if (m_shape.dropout_p == 0.0f) return grad;
  m_ops.dropout_backward(grad, mask(site), scratch);
  return scratch;
}

void TransformerBlock::forward(const ops::Tensor& x, const ops::Tensor& y,
                               const BlockDropout& dropout) {
  constexpr const char* kOp = "TransformerBlock::forward";
  const std::int64_t seq = m_shape.seq_len;
  const std::int64_t t = x.rank() == 2 ? x.dim(0) : 0;
  if (x.rank() != 2 || x.dim(1) != hidden() || t == 0 || t % seq != 0 ||
      t > seq * m_shape.max_micro_batch)
    throw std::invalid_argument(std::string(kOp) + ": x is " + detail::shape_text(x) +
                                ", expected [B * " + std::to_string(seq) + ", " +
                                std::to_string(hidden()) + "] with 1 <= B <= max_micro_batch " +
                                std::to_string(m_shape.max_micro_batch));
  detail::require_type(kOp, "x", x, m_shape.dtype);
  ops::require_shape(kOp, "y", y, {t, hidden()});
  detail::require_type(kOp, "y", y, m_shape.dtype);
  detail::require_distinct(kOp, "x", x, "y", y);
  if (dropout.first_row < 0)
    throw std::invalid_argument(std::string(kOp) + ": dropout.first_row is " +
                                std::to_string(dropout.first_row) + ", expected >= 0");
  m_input = x;
  m_dropout = dropout;
  attention_forward_branch(x);
  mlp_forward_branch(y);
}

void TransformerBlock::attention_forward_branch(const ops::Tensor& x) {
  const std::int64_t h = hidden();
  const ops::Tensor ln1 = rows(m_ln1_out, h);
  m_ops.layer_norm_forward(x, m_params.ln1_gamma, m_params.ln1_beta, ln1, per_token(m_ln1_mean),
                           per_token(m_ln1_rstd), kLayerNormEps);
  const ops::Tensor qkv = rows(m_qkv, 3 * h);
  m_ops.linear_forward(ln1, m_compute.qkv_w, m_params.qkv_b, qkv);
  m_ops.heads_from_rows(qkv, 0, per_head(m_q));
  m_ops.heads_from_rows(qkv, h, per_head(m_k));
  m_ops.heads_from_rows(qkv, 2 * h, per_head(m_v));
  m_attn->forward(per_head(m_q), per_head(m_k), per_head(m_v), per_head(m_heads));
  const ops::Tensor merged = rows(m_merged, h);
  m_ops.rows_from_heads(per_head(m_heads), merged, 0);
  const ops::Tensor residual = rows(m_h, h);
  m_ops.linear_forward(merged, m_compute.proj_w, m_params.proj_b, residual);
  apply_dropout(residual, 0);
  m_ops.add(x, residual);
}

void TransformerBlock::mlp_forward_branch(const ops::Tensor& y) {
  const ops::Tensor residual = rows(m_h, hidden());
  const ops::Tensor ln2 = rows(m_ln2_out, hidden());
  m_ops.layer_norm_forward(residual, m_params.ln2_gamma, m_params.ln2_beta, ln2,
                           per_token(m_ln2_mean), per_token(m_ln2_rstd), kLayerNormEps);
  const ops::Tensor fc1 = rows(m_fc1_out, ffn());
  m_ops.linear_forward(ln2, m_compute.fc1_w, m_params.fc1_b, fc1);
  const ops::Tensor activated = rows(m_gelu_out, ffn());
  m_ops.gelu_forward(fc1, activated);
  m_ops.linear_forward(activated, m_compute.fc2_w, m_params.fc2_b, y);
  apply_dropout(y, 1);
  m_ops.add(residual, y);
}

void TransformerBlock::backward(const ops::Tensor& dy, const ops::Tensor& dx) {
  constexpr const char* kOp = "TransformerBlock::backward";
  if (!m_input.defined()) throw std::invalid_argument(std::string(kOp) + ": called before forward");
  ops::require_shape(kOp, "dy", dy, {tokens(), hidden()});
  detail::require_type(kOp, "dy", dy, m_shape.dtype);
  ops::require_shape(kOp, "dx", dx, {tokens(), hidden()});
  detail::require_type(kOp, "dx", dx, m_shape.dtype);
  detail::require_distinct(kOp, "x", m_input, "dx", dx);
  detail::require_distinct(kOp, "dy", dy, "dx", dx);
  mlp_backward_branch(dy, dx);
  attention_backward_branch(dx);
}

void TransformerBlock::mlp_backward_branch(const ops::Tensor& dy, const ops::Tensor& dx) {
  constexpr ops::GradMode kAdd = ops::GradMode::accumulate;
  const std::int64_t h = hidden();
  const ops::Tensor d_fc2 = through_dropout(dy, 1, rows(m_d_hidden, h));
  const ops::Tensor d_ffn = rows(m_d_ffn, ffn());
  m_ops.linear_backward(rows(m_gelu_out, ffn()), m_compute.fc2_w, d_fc2, m_grads.fc2_w,
                        m_grads.fc2_b, d_ffn, kAdd);
  m_ops.gelu_backward(rows(m_fc1_out, ffn()), d_ffn, d_ffn);
  const ops::Tensor d_ln2 = rows(m_d_hidden, h);
  m_ops.linear_backward(rows(m_ln2_out, h), m_compute.fc1_w, d_ffn, m_grads.fc1_w, m_grads.fc1_b,
                        d_ln2, kAdd);
  m_ops.layer_norm_backward(rows(m_h, h), m_params.ln2_gamma, d_ln2, per_token(m_ln2_mean),
                            per_token(m_ln2_rstd), dx, m_d_gamma, m_d_beta);
  add_layer_norm_grads(m_grads.ln2_gamma, m_grads.ln2_beta);
  m_ops.add(dy, dx);  // the residual path: dx = d loss / d h
}

void TransformerBlock::attention_backward_branch(const ops::Tensor& dx) {
  constexpr ops::GradMode kAdd = ops::GradMode::accumulate;
  const std::int64_t h = hidden();
  const ops::Tensor d_proj = through_dropout(dx, 0, rows(m_d_hidden, h));
  const ops::Tensor d_merged = rows(m_d_merged, h);
  m_ops.linear_backward(rows(m_merged, h), m_compute.proj_w, d_proj, m_grads.proj_w, m_grads.proj_b,
                        d_merged, kAdd);
  m_ops.heads_from_rows(d_merged, 0, per_head(m_heads));
  m_attn->backward(per_head(m_q), per_head(m_k), per_head(m_v), per_head(m_heads), per_head(m_dq),
                   per_head(m_dk), per_head(m_dv));
  const ops::Tensor d_qkv = rows(m_qkv, 3 * h);
  m_ops.rows_from_heads(per_head(m_dq), d_qkv, 0);
  m_ops.rows_from_heads(per_head(m_dk), d_qkv, h);
  m_ops.rows_from_heads(per_head(m_dv), d_qkv, 2 * h);
  const ops::Tensor d_ln1 = rows(m_d_hidden, h);
  m_ops.linear_backward(rows(m_ln1_out, h), m_compute.qkv_w, d_qkv, m_grads.qkv_w, m_grads.qkv_b,
                        d_ln1, kAdd);
  m_ops.layer_norm_backward(m_input, m_params.ln1_gamma, d_ln1, per_token(m_ln1_mean),
                            per_token(m_ln1_rstd), d_ln1, m_d_gamma, m_d_beta);
  add_layer_norm_grads(m_grads.ln1_gamma, m_grads.ln1_beta);
  m_ops.add(d_ln1, dx);  // the residual path: dx = d loss / d x
}

void TransformerBlock::add_layer_norm_grads(const ops::Tensor& gamma_grad,
                                            const ops::Tensor& beta_grad) {
  m_ops.add(m_d_gamma, gamma_grad);
  m_ops.add(m_d_beta, beta_grad);
}

}  // namespace scaletune::kernels
