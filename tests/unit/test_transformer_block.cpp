// The GPT-2 block against a naive double-precision reference written out here (pre-LN block of
// Radford et al. 2019: LayerNorm, one qkv linear split into heads, causal softmax attention of
// Vaswani et al. 2017, tanh GELU; dropout masks read off the dropout op), its backward against
// central differences of that reference, gradient accumulation over micro-batches, reproducible
// dropout, and the memory formulas.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <stdexcept>
#include <vector>

#include "kernels/host/dropout.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/transformer/transformer_block.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

/// Host-memory tensors seen by the op layer (the host backend runs on them in place).
ops::Tensor host(const Tensor2& v) {
  return ops::Tensor(
      v.data(), ops::DType::fp32,
      {static_cast<std::int64_t>(v.extent(0)), static_cast<std::int64_t>(v.extent(1))});
}

ops::Tensor host(std::vector<float>& v) {
  return ops::Tensor(v.data(), ops::DType::fp32, {static_cast<std::int64_t>(v.size())});
}

/// The tiny block every test uses: H = 8, 2 heads, S = 4, two samples, F = 4 H.
TransformerBlockShape tiny_shape(float dropout_p = 0.0f) {
  return TransformerBlockShape{8, 2, 4, 4, 2, dropout_p};
}

/// Offsets of the documented flat layout, computed independently of the block.
struct Layout {
  std::size_t h, f;
  std::size_t ln1_g = 0, ln1_b, qkv_w, qkv_b, proj_w, proj_b, ln2_g, ln2_b, fc1_w, fc1_b, fc2_w,
              fc2_b, total;
  Layout(std::size_t hidden, std::size_t ffn) : h(hidden), f(ffn) {
    ln1_b = ln1_g + h;
    qkv_w = ln1_b + h;
    qkv_b = qkv_w + 3 * h * h;
    proj_w = qkv_b + 3 * h;
    proj_b = proj_w + h * h;
    ln2_g = proj_b + h;
    ln2_b = ln2_g + h;
    fc1_w = ln2_b + h;
    fc1_b = fc1_w + f * h;
    fc2_w = fc1_b + f;
    fc2_b = fc2_w + h * f;
    total = fc2_b + h;
  }
};

using Rows = std::vector<double>;  // [T, width] row-major

Rows naive_layer_norm(const Rows& x, std::size_t width, const double* gamma, const double* beta) {
  Rows y(x.size());
  for (std::size_t r = 0; r < x.size() / width; ++r) {
    double mean = 0.0, var = 0.0;
    for (std::size_t c = 0; c < width; ++c) mean += x[r * width + c] / width;
    for (std::size_t c = 0; c < width; ++c) var += std::pow(x[r * width + c] - mean, 2) / width;
    for (std::size_t c = 0; c < width; ++c)
      y[r * width + c] = (x[r * width + c] - mean) / std::sqrt(var + 1e-5) * gamma[c] + beta[c];
  }
  return y;
}

Rows naive_linear(const Rows& x, std::size_t in, std::size_t out, const double* w,
                  const double* b) {
  const std::size_t rows = x.size() / in;
  Rows y(rows * out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t o = 0; o < out; ++o) {
      double sum = b[o];
      for (std::size_t i = 0; i < in; ++i) sum += x[r * in + i] * w[o * in + i];
      y[r * out + o] = sum;
    }
  return y;
}

/// Causal multi-head attention on qkv [T, 3H] (q, k, v column blocks, head h at columns
/// h * Dh within each); returns the heads concatenated back into [T, H].
Rows naive_attention(const Rows& qkv, std::size_t h, std::size_t heads, std::size_t seq) {
  const std::size_t dh = h / heads, tokens = qkv.size() / (3 * h);
  const auto at = [&](std::size_t token, std::size_t part, std::size_t head, std::size_t d) {
    return qkv[token * 3 * h + part * h + head * dh + d];
  };
  Rows out(tokens * h, 0.0);
  for (std::size_t b = 0; b < tokens / seq; ++b)
    for (std::size_t head = 0; head < heads; ++head)
      for (std::size_t i = 0; i < seq; ++i) {
        std::vector<double> score(i + 1);
        double total = 0.0;
        for (std::size_t j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (std::size_t d = 0; d < dh; ++d)
            dot += at(b * seq + i, 0, head, d) * at(b * seq + j, 1, head, d);
          score[j] = std::exp(dot / std::sqrt(static_cast<double>(dh)));
          total += score[j];
        }
        for (std::size_t j = 0; j <= i; ++j)
          for (std::size_t d = 0; d < dh; ++d)
            out[(b * seq + i) * h + head * dh + d] +=
                score[j] / total * at(b * seq + j, 2, head, d);
      }
  return out;
}

double naive_gelu(double x) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

/// The two residual dropouts as multipliers keep / (1 - p) per element of [T, H]: none (empty),
/// or those the documented sites draw (seeds 2 seed and 2 seed + 1), read off the dropout op.
struct Masks {
  Rows attention, mlp;
};

Rows dropout_multipliers(std::size_t tokens, std::size_t h, const DropoutMask& mask) {
  const Tensor2 ones("ones", tokens, h), out("out", tokens, h);
  Kokkos::deep_copy(ones, 1.0f);
  dropout_forward(ones, mask, out);
  return to_doubles(out);
}

Masks block_masks(const TransformerBlockShape& shape, std::size_t tokens, const BlockDropout& d) {
  const auto h = static_cast<std::size_t>(shape.hidden);
  return {dropout_multipliers(tokens, h, {shape.dropout_p, 2 * d.seed, d.step, d.first_row}),
          dropout_multipliers(tokens, h, {shape.dropout_p, 2 * d.seed + 1, d.step, d.first_row})};
}

/// branch *= mask element-wise unless mask is empty.
void naive_dropout(Rows& branch, const Rows& mask) {
  for (std::size_t i = 0; i < mask.size(); ++i) branch[i] *= mask[i];
}

/// y = block(x), everything in double, with the given dropout multipliers.
Rows naive_block(const TransformerBlockShape& shape, const std::vector<double>& p, const Rows& x,
                 const Masks& masks = {}) {
  const auto h = static_cast<std::size_t>(shape.hidden);
  const std::size_t f = h * static_cast<std::size_t>(shape.ffn_mult);
  const Layout l(h, f);
  const Rows qkv = naive_linear(naive_layer_norm(x, h, &p[l.ln1_g], &p[l.ln1_b]), h, 3 * h,
                                &p[l.qkv_w], &p[l.qkv_b]);
  const Rows attn = naive_attention(qkv, h, static_cast<std::size_t>(shape.heads),
                                    static_cast<std::size_t>(shape.seq_len));
  Rows hid = naive_linear(attn, h, h, &p[l.proj_w], &p[l.proj_b]);
  naive_dropout(hid, masks.attention);
  for (std::size_t i = 0; i < hid.size(); ++i) hid[i] += x[i];
  Rows act = naive_linear(naive_layer_norm(hid, h, &p[l.ln2_g], &p[l.ln2_b]), h, f, &p[l.fc1_w],
                          &p[l.fc1_b]);
  for (double& a : act) a = naive_gelu(a);
  Rows y = naive_linear(act, f, h, &p[l.fc2_w], &p[l.fc2_b]);
  naive_dropout(y, masks.mlp);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += hid[i];
  return y;
}

double weighted_sum(const Rows& y, const Tensor2& w) {
  double sum = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) sum += y[i] * w.data()[i];
  return sum;
}

/// Parameters, gradients, input, loss weights and output of the tiny block, randomly filled;
/// the LayerNorm gammas are around 1 as after initialisation; the host backend and the ledger
/// the block's activations come from.
struct Case {
  HostBackend backend;
  ops::MemoryLedger ledger{backend};
  TransformerBlockShape shape;
  std::size_t tokens;
  std::vector<float> params, grads;
  Tensor2 x, w, y, dx;

  explicit Case(const TransformerBlockShape& s)
      : shape(s),
        tokens(static_cast<std::size_t>(s.max_micro_batch * s.seq_len)),
        params(static_cast<std::size_t>(TransformerBlock::parameter_count(s.hidden, s.ffn_mult))),
        grads(params.size(), 0.0f),
        x("x", tokens, static_cast<std::size_t>(s.hidden)),
        w("w", tokens, static_cast<std::size_t>(s.hidden)),
        y("y", tokens, static_cast<std::size_t>(s.hidden)),
        dx("dx", tokens, static_cast<std::size_t>(s.hidden)) {
    fill_uniform(Vector(params.data(), params.size()), 1, -0.5f, 0.5f);
    const Layout l(static_cast<std::size_t>(s.hidden),
                   static_cast<std::size_t>(s.hidden * s.ffn_mult));
    for (std::size_t c = 0; c < l.h; ++c) {
      params[l.ln1_g + c] += 1.0f;
      params[l.ln2_g + c] += 1.0f;
    }
    fill_uniform(x, 2, -1.0f, 1.0f);
    fill_uniform(w, 3, -1.0f, 1.0f);
  }
};

/// Forward and backward of the block against the reference with the same dropout masks; the
/// backward against central differences of the reference's loss sum(y * w).
void expect_matches_reference(float dropout_p, const BlockDropout& dropout) {
  Case c(tiny_shape(dropout_p));
  TransformerBlock block(c.shape, host(c.params), host(c.grads), c.ledger);
  block.forward(host(c.x), host(c.y), dropout);
  const Masks masks = dropout_p > 0.0f ? block_masks(c.shape, c.tokens, dropout) : Masks{};
  std::vector<double> p(c.params.begin(), c.params.end());
  Rows x = to_doubles(c.x);
  EXPECT_TRUE(all_near(to_doubles(c.y), naive_block(c.shape, p, x, masks), 1e-5, 1e-5));
  block.backward(host(c.w), host(c.dx));  // dy = w: the gradient of loss = sum(y * w)
  // Central differences of the double reference: step 1e-4 gives truncation error
  // ~1e-8 * |third derivative| and rounding ~1e-16 * |loss| / 1e-4, both far below the float
  // backward's own rounding (~1e-6 relative over these short sums), which the tolerance covers.
  constexpr double kStep = 1e-4;
  const auto central = [&](double& value) {
    const double saved = value;
    value = saved + kStep;
    const double up = weighted_sum(naive_block(c.shape, p, x, masks), c.w);
    value = saved - kStep;
    const double down = weighted_sum(naive_block(c.shape, p, x, masks), c.w);
    value = saved;
    return (up - down) / (2 * kStep);
  };
  std::vector<double> fd_params, fd_x;
  for (double& v : p) fd_params.push_back(central(v));
  for (double& v : x) fd_x.push_back(central(v));
  EXPECT_TRUE(all_near(std::vector<double>(c.grads.begin(), c.grads.end()), fd_params, 1e-4, 1e-4));
  EXPECT_TRUE(all_near(to_doubles(c.dx), fd_x, 1e-4, 1e-4));
}

TEST(TransformerBlock, MatchesReferenceAndCentralDifferencesWithoutDropout) {
  expect_matches_reference(0.0f, BlockDropout{});
}

TEST(TransformerBlock, MatchesReferenceAndCentralDifferencesWithDropout) {
  expect_matches_reference(0.25f, BlockDropout{7, 3, 40});
}

TEST(TransformerBlock, HalfBatchGradientsAddUpToWholeBatch) {
  Case c(tiny_shape());
  TransformerBlock block(c.shape, host(c.params), host(c.grads), c.ledger);
  block.forward(host(c.x), host(c.y), BlockDropout{});
  block.backward(host(c.w), host(c.dx));
  const std::vector<double> whole(c.grads.begin(), c.grads.end());
  const std::vector<double> whole_dx = to_doubles(c.dx);

  std::fill(c.grads.begin(), c.grads.end(), 0.0f);
  const std::size_t half = c.tokens / 2, width = c.x.extent(1);
  std::vector<double> halves_dx;
  for (std::size_t first : {std::size_t{0}, half}) {
    const auto slice = [&](const Tensor2& t) {
      return host(Tensor2(t.data() + first * width, half, width));
    };
    block.forward(slice(c.x), slice(c.y), BlockDropout{0, 0, static_cast<std::int64_t>(first)});
    block.backward(slice(c.w), slice(c.dx));
  }
  EXPECT_TRUE(all_near(std::vector<double>(c.grads.begin(), c.grads.end()), whole, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(c.dx), whole_dx, 1e-6, 1e-6));
}

TEST(TransformerBlock, DropoutIsReproducibleFromSeedAndStep) {
  Case c(tiny_shape(0.25f));
  TransformerBlock block(c.shape, host(c.params), host(c.grads), c.ledger);
  const Tensor2 again("again", c.tokens, c.x.extent(1));
  block.forward(host(c.x), host(c.y), BlockDropout{7, 3, 0});
  block.forward(host(c.x), host(again), BlockDropout{7, 3, 0});
  EXPECT_EQ(to_doubles(again), to_doubles(c.y));
  // The masks are really drawn: another step, and the dropout-free reference, differ.
  block.forward(host(c.x), host(again), BlockDropout{7, 4, 0});
  EXPECT_NE(to_doubles(again), to_doubles(c.y));
  const Rows no_dropout =
      naive_block(c.shape, std::vector<double>(c.params.begin(), c.params.end()), to_doubles(c.x));
  EXPECT_FALSE(all_near(to_doubles(c.y), no_dropout, 1e-3, 1e-3));
}

TEST(TransformerBlock, ParameterCountMatchesLayoutAndGpt2Small) {
  EXPECT_EQ(TransformerBlock::parameter_count(768, 4), 7'087'872);  // GPT-2 small, per block
  EXPECT_EQ(TransformerBlock::parameter_count(768, 4), 12 * 768 * 768 + 13 * 768);
  EXPECT_EQ(TransformerBlock::parameter_count(8, 4),
            static_cast<std::int64_t>(Layout(8, 32).total));
  EXPECT_EQ(TransformerBlock::parameter_count(6, 3),
            static_cast<std::int64_t>(Layout(6, 18).total));
}

TEST(TransformerBlock, ActivationBytesEqualAllocation) {
  for (const TransformerBlockShape& shape :
       {tiny_shape(), TransformerBlockShape{12, 3, 5, 2, 3, 0.1f}}) {
    Case c(shape);
    const TransformerBlock block(c.shape, host(c.params), host(c.grads), c.ledger);
    const std::int64_t tokens = std::int64_t{shape.max_micro_batch} * shape.seq_len;
    const std::int64_t h = shape.hidden, f = h * shape.ffn_mult, s = shape.seq_len;
    // Kept: ln1 out, q, k, v, merged, h, ln2 out (7 H), fc1 and gelu out (2 F), 4 row
    // statistics; scratch: qkv (3 H), heads (H); backward: 5 H + F; plus 2 H LayerNorm grads
    // and the attention probabilities [B, heads, S, S] with one [S, S] scratch.
    const std::int64_t floats = tokens * (16 * h + 3 * f + 4) + 2 * h +
                                s * s * (std::int64_t{shape.max_micro_batch} * shape.heads + 1);
    EXPECT_EQ(TransformerBlock::activation_bytes(shape), 4 * floats);
    EXPECT_EQ(block.activation_bytes(), 4 * floats);
  }
}

TEST(TransformerBlock, SixteenBitActivationBytesKeepStatisticsInFp32) {
  for (const ops::DType dtype : {ops::DType::fp16, ops::DType::bf16}) {
    TransformerBlockShape shape = tiny_shape();
    shape.dtype = dtype;
    // T = 8 rows, H = 8, F = 32, S = 4, 2 heads: 2 bytes per activation and per attention
    // probability, 4 per row statistic and LayerNorm parameter gradient.
    const std::int64_t activations = 8 * (16 * 8 + 3 * 32) + 4 * 4 * (2 * 2 + 1);
    EXPECT_EQ(TransformerBlock::activation_bytes(shape), 2 * activations + 4 * (4 * 8 + 2 * 8));
  }
}

TEST(TransformerBlock, CudaActivationBytesCountTheAttentionsTwoProbabilityBuffers) {
  // CudaAttention holds the probabilities and their gradients, [B heads, S, S] each, where the
  // host holds the probabilities and one [S, S] scratch. tiny_shape: B 2, 2 heads, S 4.
  TransformerBlockShape cuda = tiny_shape();
  cuda.dtype = ops::DType::bf16;
  cuda.backend = ops::BackendKind::cuda;
  TransformerBlockShape host_shape = cuda;
  host_shape.backend = ops::BackendKind::host;
  const std::int64_t probs = 4 * 4 * 2 * 2;
  EXPECT_EQ(
      TransformerBlock::activation_bytes(cuda) - TransformerBlock::activation_bytes(host_shape),
      2 * (2 * probs - (probs + 4 * 4)));
}

TEST(TransformerBlock, RejectsBadShapesBuffersAndCallOrder) {
  Case c(tiny_shape());
  TransformerBlockShape odd = tiny_shape();
  odd.heads = 3;
  const ops::Tensor params = host(c.params), grads = host(c.grads);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] {
        TransformerBlock{odd, params, grads, c.ledger};
      },
      "TransformerBlock: hidden is 8, expected a multiple of heads 3"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] {
        TransformerBlock{c.shape, params.window(0, {10}), grads, c.ledger};
      },
      "params has 10 floats, expected 872"));
  TransformerBlock block(c.shape, params, grads, c.ledger);
  const ops::Tensor x = host(c.x), y = host(c.y), w = host(c.w), dx = host(c.dx);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { block.backward(w, dx); },
                                                         "called before forward"));
  const ops::Tensor three_rows = x.window(0, {3, 8});
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { block.forward(three_rows, y, BlockDropout{}); },
      "x is [3, 8], expected [B * 4, 8] with 1 <= B <= max_micro_batch 2"));
  block.forward(x, y, BlockDropout{});
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { block.backward(w, w); },
                                                         "dx must not alias dy"));
}

}  // namespace
}  // namespace scaletune::kernels
