#include "kernels/profile/op_invocation.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>

#include "kernels/host/lookup_inputs.hpp"
#include "kernels/host/reuse_histogram.hpp"
#include "kernels/ops/transfer.hpp"

namespace scaletune::kernels::profile {
namespace {

using ops::Tensor;

/// The invocation of a backend call held in a closure (which keeps the op's state alive).
class Invocation final : public OpInvocation {
 public:
  Invocation(trace::ComputeOp record, std::function<void()> call)
      : m_record(std::move(record)), m_call(std::move(call)) {}
  void run() override { m_call(); }
  const trace::ComputeOp& record() const override { return m_record; }

 private:
  trace::ComputeOp m_record;
  std::function<void()> m_call;
};

/// What a builder reads and makes tensors with.
struct Site {
  ops::Backend& backend;
  ops::MemoryLedger& ledger;
  trace::ComputeOp op;
  std::uint64_t seed;

  std::int64_t field(const char* name) const {
    for (const trace::ShapeField& f : op.shape)
      if (f.name == name) return f.value;
    throw std::invalid_argument("profile: op " + op.op + " needs shape field " + name);
  }
  std::int64_t field_or(const char* name, std::int64_t fallback) const {
    for (const trace::ShapeField& f : op.shape)
      if (f.name == name) return f.value;
    return fallback;
  }
  ops::DType dtype() const {
    for (ops::DType t : {ops::DType::fp32, ops::DType::fp16, ops::DType::bf16, ops::DType::fp64})
      if (op.dtype == core::dtype_key(t)) return t;
    throw std::invalid_argument("profile: op " + op.op + " has element type '" + op.dtype +
                                "'; expected fp32, fp16, bf16 or fp64");
  }
  Tensor make(ops::DType t, std::initializer_list<std::int64_t> shape, float value = 0.5f) {
    const Tensor x = ledger.make(op.op, t, shape);
    if (value != 0.0f) backend.fill(x, value);
    return x;
  }
  std::unique_ptr<OpInvocation> done(std::function<void()> call) {
    return std::make_unique<Invocation>(std::move(op), std::move(call));
  }
};

using Builder = std::function<std::unique_ptr<OpInvocation>(Site&)>;

/// An element-wise [rows, cols] view of numel elements (rank 2, as the host's views take).
Tensor matrix(Site& s, ops::DType t, float value = 0.5f) {
  const std::int64_t n = s.field("numel");
  const std::int64_t cols = n % 1024 == 0 ? 1024 : n;
  return s.make(t, {n / cols, cols}, value);
}

Builder unary(void (ops::Backend::*f)(const Tensor&, const Tensor&)) {
  return [f](Site& s) {
    const Tensor x = matrix(s, s.dtype()), y = matrix(s, s.dtype());
    return s.done([&b = s.backend, f, x, y] { (b.*f)(x, y); });
  };
}

Builder binary(void (ops::Backend::*f)(const Tensor&, const Tensor&, const Tensor&)) {
  return [f](Site& s) {
    const Tensor x = matrix(s, s.dtype()), dy = matrix(s, s.dtype()), dx = matrix(s, s.dtype());
    return s.done([&b = s.backend, f, x, dy, dx] { (b.*f)(x, dy, dx); });
  };
}

Builder dropout(bool backward) {
  return [backward](Site& s) {
    const Tensor x = matrix(s, s.dtype()), y = matrix(s, s.dtype());
    const ops::DropoutMask mask{.p = 0.1f, .seed = s.seed, .step = 1, .first_row = 0};
    return s.done([&b = s.backend, backward, x, y, mask] {
      backward ? b.dropout_backward(x, mask, y) : b.dropout_forward(x, mask, y);
    });
  };
}

/// [batch, rows, cols] when batch > 1, else [rows, cols].
Tensor batched(Site& s, ops::DType t, std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  return batch > 1 ? s.make(t, {batch, rows, cols}) : s.make(t, {rows, cols});
}

std::unique_ptr<OpInvocation> gemm(Site& s) {
  const std::int64_t m = s.field("m"), n = s.field("n"), k = s.field("k"), batch = s.field("batch");
  const bool ta = s.field("trans_a") != 0, tb = s.field("trans_b") != 0;
  const ops::DType t = s.dtype();
  const Tensor a = batched(s, t, batch, ta ? k : m, ta ? m : k);
  const Tensor bm = batched(s, t, batch, tb ? n : k, tb ? k : n);
  const Tensor c = batched(s, t, batch, m, n);
  return s.done([&b = s.backend, ta, tb, a, bm, c] { b.gemm(ta, tb, 1.0f, a, bm, 0.0f, c); });
}

std::unique_ptr<OpInvocation> linear(Site& s, bool backward) {
  const std::int64_t rows = s.field("m"), out = s.field("n"), in = s.field("k");
  const ops::DType t = s.dtype();
  const Tensor x = s.make(t, {rows, in}), w = s.make(t, {out, in}), bias = s.make(t, {out});
  const Tensor y = s.make(t, {rows, out});
  if (!backward)
    return s.done([&b = s.backend, x, w, bias, y] { b.linear_forward(x, w, bias, y); });
  const Tensor dw = s.make(ops::DType::fp32, {out, in}), db = s.make(ops::DType::fp32, {out});
  const Tensor dx = s.field_or("input_grad", 1) != 0 ? s.make(t, {rows, in}) : Tensor();
  return s.done([&b = s.backend, x, w, y, dw, db, dx] {
    b.linear_backward(x, w, y, dw, db, dx, ops::GradMode::overwrite);
  });
}

std::unique_ptr<OpInvocation> layer_norm(Site& s, bool backward) {
  const std::int64_t rows = s.field("rows"), f = s.field("features");
  const ops::DType t = s.dtype();
  const Tensor x = s.make(t, {rows, f}), y = s.make(t, {rows, f});
  const Tensor gamma = s.make(ops::DType::fp32, {f}), beta = s.make(ops::DType::fp32, {f});
  const Tensor mean = s.make(ops::DType::fp32, {rows}), rstd = s.make(ops::DType::fp32, {rows});
  s.backend.layer_norm_forward(x, gamma, beta, y, mean, rstd, 1e-5f);
  if (!backward)
    return s.done([&b = s.backend, x, gamma, beta, y, mean, rstd] {
      b.layer_norm_forward(x, gamma, beta, y, mean, rstd, 1e-5f);
    });
  const Tensor dg = s.make(ops::DType::fp32, {f}), dbeta = s.make(ops::DType::fp32, {f});
  return s.done([&b = s.backend, x, gamma, y, mean, rstd, dg, dbeta] {
    b.layer_norm_backward(x, gamma, y, mean, rstd, y, dg, dbeta);
  });
}

std::unique_ptr<OpInvocation> heads_copy(Site& s, bool to_heads) {
  const std::int64_t batch = s.field("batch"), h = s.field("heads"), seq = s.field("seq"),
                     dh = s.field("head_dim");
  const ops::DType t = s.dtype();
  const Tensor rows = s.make(t, {batch * seq, 3 * h * dh});
  const Tensor heads = s.make(t, {batch, h, seq, dh});
  if (to_heads) return s.done([&b = s.backend, rows, heads] { b.heads_from_rows(rows, 0, heads); });
  return s.done([&b = s.backend, rows, heads] { b.rows_from_heads(heads, rows, 0); });
}

/// Token ids [tokens] in [0, vocab), as the GPT workload's batches have them.
Tensor token_ids(Site& s, std::int64_t tokens, std::int64_t vocab) {
  const Tensor ids = s.ledger.make("tokens", ops::DType::int32, {tokens});
  std::vector<std::int32_t> host(static_cast<std::size_t>(tokens));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<std::int32_t>((i * 7919 + s.seed) % static_cast<std::size_t>(vocab));
  ops::upload_ints(s.backend, ids, host);
  return ids;
}

std::unique_ptr<OpInvocation> token_embedding(Site& s, bool backward) {
  const std::int64_t tokens = s.field("tokens"), hidden = s.field("hidden");
  const std::int64_t vocab = s.field_or("vocab", 50257), seq = std::min<std::int64_t>(tokens, 1024);
  const Tensor wte = s.make(ops::DType::fp32, {vocab, hidden});
  const Tensor wpe = s.make(ops::DType::fp32, {seq, hidden});
  const Tensor ids = token_ids(s, tokens, vocab);
  const Tensor out = s.make(ops::DType::fp32, {tokens, hidden});
  if (!backward)
    return s.done(
        [&b = s.backend, wte, wpe, ids, out] { b.token_embedding_forward(wte, wpe, ids, out); });
  return s.done(
      [&b = s.backend, wte, wpe, ids, out] { b.token_embedding_backward(out, ids, wte, wpe); });
}

ops::ConvGeometry geometry(const Site& s) {
  ops::ConvGeometry g;
  g.in_channels = static_cast<int>(s.field("in_channels"));
  g.out_channels = static_cast<int>(s.field("out_channels"));
  g.kernel = static_cast<int>(s.field("kernel"));
  g.stride = static_cast<int>(s.field("stride"));
  g.pad = static_cast<int>(s.field("pad"));
  g.in_h = static_cast<int>(s.field("in_h"));
  g.in_w = static_cast<int>(s.field("in_w"));
  ops::validate(g);
  return g;
}

std::unique_ptr<OpInvocation> conv2d(Site& s, bool backward) {
  const ops::ConvGeometry g = geometry(s);
  const auto n = static_cast<int>(s.field("batch"));
  const ops::DType t = s.dtype();
  std::shared_ptr<ops::Conv2dOp> conv = s.backend.make_conv2d(g, n, t);
  const Tensor x = s.make(t, {n, g.in_channels, g.in_h, g.in_w});
  const Tensor w = s.make(t, {g.out_channels, g.in_channels, g.kernel, g.kernel});
  const Tensor y = s.make(t, {n, g.out_channels, g.out_h(), g.out_w()});
  if (!backward) return s.done([conv, x, w, y] { conv->forward(x, w, y); });
  const Tensor dw = s.make(t, {g.out_channels, g.in_channels, g.kernel, g.kernel});
  const Tensor dx =
      s.field_or("input_grad", 1) != 0 ? s.make(t, {n, g.in_channels, g.in_h, g.in_w}) : Tensor();
  return s.done([conv, x, w, y, dw, dx] { conv->backward(x, w, y, dw, dx); });
}

/// [N, C, H, W] from the fields batch, channels, h, w.
std::array<int, 4> nchw(const Site& s) {
  return {static_cast<int>(s.field("batch")), static_cast<int>(s.field("channels")),
          static_cast<int>(s.field("h")), static_cast<int>(s.field("w"))};
}

std::unique_ptr<OpInvocation> batch_norm(Site& s, bool backward) {
  const auto [n, c, h, w] = nchw(s);
  const ops::DType t = s.dtype();
  std::shared_ptr<ops::BatchNormOp> bn = s.backend.make_batch_norm(n, c, h, w, 1e-5f, nullptr, t);
  const Tensor x = s.make(t, {n, c, h, w}), y = s.make(t, {n, c, h, w});
  const Tensor gamma = s.make(ops::DType::fp32, {c}), beta = s.make(ops::DType::fp32, {c});
  bn->forward(x, gamma, beta, y);
  if (!backward) return s.done([bn, x, gamma, beta, y] { bn->forward(x, gamma, beta, y); });
  const Tensor dg = s.make(ops::DType::fp32, {c}), dbeta = s.make(ops::DType::fp32, {c});
  const Tensor dx = s.make(t, {n, c, h, w});
  return s.done([bn, x, gamma, y, dg, dbeta, dx] { bn->backward(x, gamma, y, dg, dbeta, dx); });
}

std::unique_ptr<OpInvocation> max_pool(Site& s, bool backward) {
  const auto [n, c, h, w] = nchw(s);
  const auto k = static_cast<int>(s.field("kernel")), stride = static_cast<int>(s.field("stride")),
             pad = static_cast<int>(s.field("pad"));
  const ops::DType t = s.dtype();
  std::shared_ptr<ops::MaxPoolOp> pool = s.backend.make_max_pool(k, stride, pad, n, c, h, w, t);
  const int ho = (h + 2 * pad - k) / stride + 1, wo = (w + 2 * pad - k) / stride + 1;
  const Tensor x = s.make(t, {n, c, h, w}), y = s.make(t, {n, c, ho, wo});
  pool->forward(x, y);
  if (!backward) return s.done([pool, x, y] { pool->forward(x, y); });
  const Tensor dx = s.make(t, {n, c, h, w});
  return s.done([pool, y, dx] { pool->backward(y, dx); });
}

std::unique_ptr<OpInvocation> avg_pool(Site& s, bool backward) {
  const auto [n, c, h, w] = nchw(s);
  const ops::DType t = s.dtype();
  const Tensor x = s.make(t, {n, c, h, w}), y = s.make(t, {n, c});
  if (!backward) return s.done([&b = s.backend, x, y] { b.global_avg_pool_forward(x, y); });
  return s.done([&b = s.backend, x, y] { b.global_avg_pool_backward(y, x); });
}

std::unique_ptr<OpInvocation> attention(Site& s, bool backward) {
  const auto batch = static_cast<int>(s.field("batch")), h = static_cast<int>(s.field("heads")),
             seq = static_cast<int>(s.field("seq")), dh = static_cast<int>(s.field("head_dim"));
  const ops::DType t = s.dtype();
  std::shared_ptr<ops::AttentionOp> op = s.backend.make_attention(batch, h, seq, dh, t);
  const Tensor q = s.make(t, {batch, h, seq, dh}), k = s.make(t, {batch, h, seq, dh});
  const Tensor v = s.make(t, {batch, h, seq, dh}), out = s.make(t, {batch, h, seq, dh});
  op->forward(q, k, v, out);
  if (!backward) return s.done([op, q, k, v, out] { op->forward(q, k, v, out); });
  const Tensor dq = s.make(t, {batch, h, seq, dh}), dk = s.make(t, {batch, h, seq, dh});
  const Tensor dv = s.make(t, {batch, h, seq, dh});
  return s.done([op, q, k, v, out, dq, dk, dv] { op->backward(q, k, v, out, dq, dk, dv); });
}

std::unique_ptr<OpInvocation> softmax_cross_entropy(Site& s) {
  const std::int64_t rows = s.field("rows"), classes = s.field("classes");
  const ops::DType t = s.dtype();
  const Tensor logits = s.make(t, {rows, classes}), dlogits = s.make(t, {rows, classes});
  const Tensor labels = token_ids(s, rows, classes);
  const Tensor loss = s.make(ops::DType::fp64, {1}, 0.0f);
  return s.done([&b = s.backend, logits, labels, dlogits, loss] {
    b.softmax_cross_entropy(logits, labels, 1.0f, 1.0f, dlogits, loss);
  });
}

std::unique_ptr<OpInvocation> bce(Site& s) {
  const std::int64_t rows = s.field("rows");
  const ops::DType t = s.dtype();
  const Tensor logits = s.make(t, {rows, 1}), dlogits = s.make(t, {rows, 1});
  const Tensor labels = s.make(ops::DType::fp32, {rows}, 1.0f);
  const Tensor loss = s.make(ops::DType::fp64, {1}, 0.0f);
  return s.done([&b = s.backend, logits, labels, dlogits, loss] {
    b.bce_with_logits(logits, labels, 1.0f, 1.0f, dlogits, loss);
  });
}

/// An embedding bag over drawn indices; the record gets their reuse histogram and distinct rows.
std::unique_ptr<OpInvocation> embedding_bag(Site& s, bool backward) {
  const std::int64_t batch = s.field("batch"), rows = s.field("rows"), dim = s.field("dim");
  const std::int64_t lookups = s.field("lookups"), zipf_milli = s.field_or("zipf_milli", 0);
  LookupBatchSpec spec{.batch = batch,
                       .pooling = static_cast<double>(std::max<std::int64_t>(1, lookups / batch)),
                       .bag_law = BagSizeLaw::fixed,
                       .distribution = {},
                       .rows = rows,
                       .seed = s.seed};
  if (zipf_milli > 0) spec.distribution = {IndexLaw::zipf, static_cast<double>(zipf_milli) / 1000};
  const LookupBatch bags = generate_lookup_batch(spec);
  const auto nnz = static_cast<std::int64_t>(bags.indices.size());
  const Tensor indices = s.ledger.make("indices", ops::DType::int64, {nnz});
  const Tensor offsets = s.ledger.make("offsets", ops::DType::int64, {batch + 1});
  s.backend.upload(indices, std::as_bytes(std::span<const std::int64_t>(bags.indices)));
  s.backend.upload(offsets, std::as_bytes(std::span<const std::int64_t>(bags.offsets)));
  const ReuseHistogram reuse = reuse_histogram(bags.indices);
  std::vector<std::int64_t> sorted = bags.indices;
  std::sort(sorted.begin(), sorted.end());
  const auto distinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
  s.op.reuse_histogram.assign(reuse.begin(), reuse.end());
  for (trace::ShapeField& f : s.op.shape) {
    if (f.name == "lookups") f.value = nnz;
    if (f.name == "distinct") f.value = distinct;
  }
  const ops::DType t = s.dtype();
  std::shared_ptr<ops::EmbeddingBagOp> bag = s.backend.make_embedding_bag(
      rows, static_cast<int>(dim), static_cast<int>(batch), nnz, ops::Pooling::kSum);
  const Tensor table = s.make(t, {rows, dim}), out = s.make(ops::DType::fp32, {batch, dim});
  if (!backward)
    return s.done(
        [bag, table, indices, offsets, out] { bag->forward(table, indices, offsets, out); });
  return s.done([bag, indices, offsets, out] { bag->backward(out, indices, offsets); });
}

/// `count` distinct rows of [0, rows) drawn uniformly, ascending: the rows an embedding
/// backward hands its update (sorted, spread over the table), by selection sampling (Knuth,
/// TAOCP vol. 2, 3.4.2, algorithm S).
std::vector<std::int64_t> scattered_rows(std::int64_t count, std::int64_t rows,
                                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t r = 0; r < rows && std::ssize(out) < count; ++r)
    if (static_cast<double>(rows - r) * unit(rng) < static_cast<double>(count - std::ssize(out)))
      out.push_back(r);
  return out;
}

std::unique_ptr<OpInvocation> sparse_update(Site& s, bool adagrad) {
  const std::int64_t count = s.field("count"), dim = s.field("dim");
  const std::int64_t table_rows = std::max<std::int64_t>(count, s.field_or("rows", count));
  const ops::DType t = s.dtype();
  const Tensor table = s.make(t, {table_rows, dim});
  const Tensor state = s.make(ops::DType::fp32, {table_rows}, 0.0f);
  const Tensor rows = s.ledger.make("rows", ops::DType::int64, {count});
  const std::vector<std::int64_t> ids = scattered_rows(count, table_rows, s.seed);
  s.backend.upload(rows, std::as_bytes(std::span<const std::int64_t>(ids)));
  const ops::SparseRows grad{.rows = rows,
                             .values = s.make(ops::DType::fp32, {count, dim}),
                             .count = count,
                             .count_on_device = {}};
  if (adagrad)
    return s.done([&b = s.backend, table, state, grad] {
      b.sparse_rowwise_adagrad(table, state, grad, {.lr = 0.01f, .eps = 1e-8f});
    });
  return s.done([&b = s.backend, table, grad] { b.sparse_sgd(table, grad, 0.01f); });
}

std::unique_ptr<OpInvocation> interaction(Site& s, bool backward) {
  const std::int64_t rows = s.field("rows"), f = s.field("features"), dim = s.field("dim");
  const Tensor z = s.make(ops::DType::fp32, {rows, f, dim});
  const Tensor out = s.make(ops::DType::fp32, {rows, dim + f * (f - 1) / 2});
  if (!backward) return s.done([&b = s.backend, z, out] { b.interaction_forward(z, out); });
  const Tensor dz = s.make(ops::DType::fp32, {rows, f, dim});
  return s.done([&b = s.backend, z, out, dz] { b.interaction_backward(z, out, dz); });
}

std::unique_ptr<OpInvocation> optimizer(Site& s, bool adam) {
  const std::int64_t n = s.field("numel");
  const Tensor params = s.make(ops::DType::fp32, {n}), grads = s.make(ops::DType::fp32, {n});
  const Tensor m = s.make(ops::DType::fp32, {n}, 0.0f);
  const Tensor v = adam ? s.make(ops::DType::fp32, {n}, 0.0f) : Tensor();
  ops::MasterUpdate update;
  if (s.field_or("copy16", 0) != 0) update.copy = s.make(ops::DType::bf16, {n});
  if (adam)
    return s.done([&b = s.backend, params, grads, m, v, update] {
      b.adam(params, grads, m, v, 1, ops::AdamOptions{}, update);
    });
  return s.done([&b = s.backend, params, grads, m, update] {
    b.sgd_momentum(params, grads, m, ops::SgdOptions{}, update);
  });
}

std::unique_ptr<OpInvocation> copy_columns(Site& s) {
  const std::int64_t rows = s.field("rows"), cols = s.field("cols");
  const bool accumulate = s.field_or("accumulate", 0) != 0;
  const Tensor src = s.make(s.dtype(), {rows, cols}), dst = s.make(s.dtype(), {rows, cols});
  return s.done([&b = s.backend, src, dst, cols, accumulate] {
    b.copy_columns(src, 0, dst, 0, cols, accumulate);
  });
}

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = {
      {"fill",
       [](Site& s) {
         const Tensor x = matrix(s, s.dtype());
         return s.done([&b = s.backend, x] { b.fill(x, 1.0f); });
       }},
      {"copy", unary(&ops::Backend::copy)},
      {"add", unary(&ops::Backend::add)},
      {"scale",
       [](Site& s) {
         const Tensor x = matrix(s, s.dtype());
         return s.done([&b = s.backend, x] { b.scale(x, 0.5f); });
       }},
      {"check_nonfinite",
       [](Site& s) {
         const Tensor x = matrix(s, s.dtype()), flag = s.make(ops::DType::int32, {1}, 0.0f);
         return s.done([&b = s.backend, x, flag] { b.check_nonfinite(x, flag); });
       }},
      {"copy_columns", copy_columns},
      {"relu_forward", unary(&ops::Backend::relu_forward)},
      {"relu_backward", binary(&ops::Backend::relu_backward)},
      {"gelu_forward", unary(&ops::Backend::gelu_forward)},
      {"gelu_backward", binary(&ops::Backend::gelu_backward)},
      {"dropout_forward", dropout(false)},
      {"dropout_backward", dropout(true)},
      {"gemm", gemm},
      {"linear_forward", [](Site& s) { return linear(s, false); }},
      {"linear_backward", [](Site& s) { return linear(s, true); }},
      {"layer_norm_forward", [](Site& s) { return layer_norm(s, false); }},
      {"layer_norm_backward", [](Site& s) { return layer_norm(s, true); }},
      {"heads_from_rows", [](Site& s) { return heads_copy(s, true); }},
      {"rows_from_heads", [](Site& s) { return heads_copy(s, false); }},
      {"token_embedding_forward", [](Site& s) { return token_embedding(s, false); }},
      {"token_embedding_backward", [](Site& s) { return token_embedding(s, true); }},
      {"conv2d_forward", [](Site& s) { return conv2d(s, false); }},
      {"conv2d_backward", [](Site& s) { return conv2d(s, true); }},
      {"batch_norm_forward", [](Site& s) { return batch_norm(s, false); }},
      {"batch_norm_backward", [](Site& s) { return batch_norm(s, true); }},
      {"max_pool_forward", [](Site& s) { return max_pool(s, false); }},
      {"max_pool_backward", [](Site& s) { return max_pool(s, true); }},
      {"avg_pool_forward", [](Site& s) { return avg_pool(s, false); }},
      {"avg_pool_backward", [](Site& s) { return avg_pool(s, true); }},
      {"attention_forward", [](Site& s) { return attention(s, false); }},
      {"attention_backward", [](Site& s) { return attention(s, true); }},
      {"softmax_cross_entropy", softmax_cross_entropy},
      {"bce_with_logits", bce},
      {"embedding_bag_forward", [](Site& s) { return embedding_bag(s, false); }},
      {"embedding_bag_backward", [](Site& s) { return embedding_bag(s, true); }},
      {"sparse_sgd", [](Site& s) { return sparse_update(s, false); }},
      {"sparse_rowwise_adagrad", [](Site& s) { return sparse_update(s, true); }},
      {"interaction_forward", [](Site& s) { return interaction(s, false); }},
      {"interaction_backward", [](Site& s) { return interaction(s, true); }},
      {"sgd_momentum", [](Site& s) { return optimizer(s, false); }},
      {"adam", [](Site& s) { return optimizer(s, true); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> invocable_ops() {
  std::vector<std::string> out;
  for (const auto& [name, builder] : builders()) out.push_back(name);
  return out;
}

std::unique_ptr<OpInvocation> make_invocation(ops::Backend& backend, ops::MemoryLedger& ledger,
                                              const trace::ComputeOp& op, std::uint64_t seed) {
  const auto it = builders().find(op.op);
  if (it == builders().end())
    throw std::invalid_argument("profile: no way to run op kind '" + op.op + "'");
  Site site{backend, ledger, op, seed};
  return it->second(site);
}

}  // namespace scaletune::kernels::profile
