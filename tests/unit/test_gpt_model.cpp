// The GPT-2 model: its backward against central differences of its own loss in every part
// (embeddings, a block, the final LayerNorm), gradient accumulation over micro-batches, the
// published parameter count of GPT-2 small and a hand count, GPT-2's initialisation, the
// activation memory formula and its input errors; the parameter units and a ZeRO-3 style
// stage-by-stage driver (every block on one shared layer buffer) against the flat model, and
// the stage calls' order checks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/transformer/gpt_init.hpp"
#include "kernels/transformer/gpt_model.hpp"
#include "kernels/transformer/transformer_block.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::throws_naming;

/// 2 layers, H 8, 2 heads, S 4, V 11, F 32, two samples, no dropout.
GptShape tiny_shape() {
  return GptShape{2, 8, 2, 4, 11, 4, 0.0f, 2};
}

/// Offsets of the documented flat layout, computed independently of the model.
struct Layout {
  std::size_t h, f, v, s, layers;
  std::size_t wte = 0, wpe, block0, block_size, ln_f_gamma, ln_f_beta, total;
  Layout(const GptShape& shape)
      : h(shape.hidden),
        f(shape.hidden * shape.ffn_mult),
        v(shape.vocab),
        s(shape.seq_len),
        layers(shape.layers) {
    wpe = wte + v * h;
    block0 = wpe + s * h;
    // ln1 (2H), qkv (3H^2 + 3H), proj (H^2 + H), ln2 (2H), fc1 (FH + F), fc2 (HF + H).
    block_size = 2 * h + 3 * h * h + 3 * h + h * h + h + 2 * h + f * h + f + h * f + h;
    ln_f_gamma = block0 + layers * block_size;
    ln_f_beta = ln_f_gamma + h;
    total = ln_f_beta + h;
  }
  /// Offsets inside a block, in TransformerBlock's documented order.
  std::size_t qkv_w(std::size_t l) const { return block0 + l * block_size + 2 * h; }
  std::size_t proj_w(std::size_t l) const { return qkv_w(l) + 3 * h * h + 3 * h; }
  std::size_t ln2_gamma(std::size_t l) const { return proj_w(l) + h * h + h; }
  std::size_t fc1_w(std::size_t l) const { return ln2_gamma(l) + 2 * h; }
  std::size_t fc2_w(std::size_t l) const { return fc1_w(l) + f * h + f; }
};

/// The host backend the models run on and the ledger of their activations and token ids.
HostBackend& backend() {
  static HostBackend host;
  return host;
}

ops::MemoryLedger& ledger() {
  static ops::MemoryLedger ledger(backend());
  return ledger;
}

/// Host floats seen by the op layer (the host backend runs on them in place).
ops::Tensor host(std::vector<float>& v) {
  return ops::Tensor(v.data(), ops::DType::fp32, {static_cast<std::int64_t>(v.size())});
}

/// Floats of a tensor of the host backend.
std::size_t floats(const ops::Tensor& t) {
  return static_cast<std::size_t>(t.numel());
}

ops::Tensor make_ids(const std::vector<int>& ids) {
  const ops::Tensor t =
      ledger().make("ids", ops::DType::int32, {static_cast<std::int64_t>(ids.size())});
  ops::upload_ints(backend(), t, ids);
  return t;
}

/// The model's accumulated loss.
double loss_of(const GptModel& model) {
  return ops::download_scalar(backend(), model.loss());
}

/// Two samples of S = 4: token ids and their next-token targets.
const std::vector<int> kTokens = {3, 7, 7, 1, 0, 10, 5, 2};
const std::vector<int> kTargets = {7, 7, 1, 9, 10, 5, 2, 4};

/// Random parameters large enough that every part has sizeable gradients.
std::vector<float> random_params(const GptShape& shape, unsigned seed) {
  std::vector<float> params(static_cast<std::size_t>(GptModel::parameter_count(shape)));
  fill_uniform(Vector(params.data(), params.size()), seed, -0.5f, 0.5f);
  return params;
}

TEST(GptModel, GradientsMatchCentralDifferencesInEveryPart) {
  const GptShape shape = tiny_shape();
  const Layout at(shape);
  std::vector<float> params = random_params(shape, 3);
  std::vector<float> grads(params.size(), 0.0f), scratch(params.size(), 0.0f);
  GptModel model(shape, host(params), host(grads), ledger());
  // The probe evaluates the loss; its gradients are discarded.
  GptModel probe(shape, host(params), host(scratch), ledger());
  const ops::Tensor tokens = make_ids(kTokens), targets = make_ids(kTargets);
  model.forward_backward(tokens, targets, 1.0f, BlockDropout{});

  const std::vector<std::size_t> sample = {
      at.wte + 3 * at.h + 1, at.wte + 9 * at.h + 4, at.wte + 7 * at.h + 6,  // embedded + head
      at.wpe + 0 * at.h + 2, at.wpe + 3 * at.h + 7,                         // positions
      at.qkv_w(0) + 5,       at.proj_w(1) + 17,     at.fc1_w(1) + 40,      at.fc2_w(0) + 100,
      at.ln2_gamma(0) + 3,   at.ln_f_gamma + 2,     at.ln_f_beta + 5};
  const float eps = 1e-2f;
  std::vector<double> numeric, analytic;
  double largest = 0.0;
  for (const std::size_t i : sample) {
    const float saved = params[i];
    params[i] = saved + eps;
    const double up = probe.forward_backward(tokens, targets, 1.0f, BlockDropout{});
    params[i] = saved - eps;
    const double down = probe.forward_backward(tokens, targets, 1.0f, BlockDropout{});
    params[i] = saved;
    numeric.push_back((up - down) / (2.0 * static_cast<double>(eps)));
    analytic.push_back(grads[i]);
    largest = std::max(largest, std::abs(static_cast<double>(grads[i])));
  }
  EXPECT_GT(largest, 0.05);  // the sample is not all flat directions
  // Float loss of ~20 rounds at ~2e-6, so the difference quotient carries ~1e-4 of noise;
  // the O(eps^2) truncation term adds a few parts in 1e3.
  EXPECT_TRUE(all_near(analytic, numeric, 2e-3, 2e-2));
}

TEST(GptModel, MicroBatchesAccumulateIntoTheSameGradients) {
  const GptShape shape = tiny_shape();
  std::vector<float> params = random_params(shape, 5);
  std::vector<float> whole(params.size(), 0.0f), split(params.size(), 0.0f);
  GptModel one_batch(shape, host(params), host(whole), ledger());
  GptModel two_batches(shape, host(params), host(split), ledger());
  const double loss_whole =
      one_batch.forward_backward(make_ids(kTokens), make_ids(kTargets), 0.5f, BlockDropout{});
  double loss_split = 0.0;
  for (std::size_t b = 0; b < 2; ++b) {
    const std::vector<int> tokens(kTokens.begin() + 4 * b, kTokens.begin() + 4 * (b + 1));
    const std::vector<int> targets(kTargets.begin() + 4 * b, kTargets.begin() + 4 * (b + 1));
    loss_split +=
        two_batches.forward_backward(make_ids(tokens), make_ids(targets), 0.5f,
                                     BlockDropout{0, 0, static_cast<std::int64_t>(4 * b)});
  }
  EXPECT_NEAR(loss_split, loss_whole, 1e-5 * std::abs(loss_whole));
  const std::vector<double> a(whole.begin(), whole.end()), b(split.begin(), split.end());
  EXPECT_TRUE(all_near(b, a, 1e-6, 1e-4));
}

TEST(GptModel, SecondCallAddsToTheGradients) {
  const GptShape shape = tiny_shape();
  std::vector<float> params = random_params(shape, 7);
  std::vector<float> grads(params.size(), 0.0f);
  GptModel model(shape, host(params), host(grads), ledger());
  const ops::Tensor tokens = make_ids(kTokens), targets = make_ids(kTargets);
  model.forward_backward(tokens, targets, 1.0f, BlockDropout{});
  const std::vector<double> once(grads.begin(), grads.end());
  model.forward_backward(tokens, targets, 1.0f, BlockDropout{});
  std::vector<double> twice_halved;
  for (const float g : grads) twice_halved.push_back(0.5 * g);
  EXPECT_TRUE(all_near(twice_halved, once, 1e-7, 1e-5));
}

TEST(GptModel, ParameterCounts) {
  // GPT-2 small with the LM head tied to wte, wpe included (Radford et al. 2019; the released
  // 124M checkpoint).
  EXPECT_EQ(GptModel::parameter_count(GptShape{12, 768, 12, 1024, 50257}), 124'439'808);
  // Tiny: wte 11*8 + wpe 4*8 + 2 blocks * (12*64 + 13*8) + ln_f 2*8.
  EXPECT_EQ(GptModel::parameter_count(tiny_shape()), 88 + 32 + 2 * 872 + 16);
  EXPECT_EQ(static_cast<std::size_t>(GptModel::parameter_count(tiny_shape())),
            Layout(tiny_shape()).total);
}

/// Mean and (population) standard deviation of n floats at `p`.
std::pair<double, double> mean_std(const float* p, std::size_t n) {
  double sum = 0.0, sum_sq = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += p[i];
  const double mean = sum / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) sum_sq += (p[i] - mean) * (p[i] - mean);
  return {mean, std::sqrt(sum_sq / static_cast<double>(n))};
}

bool all_equal(const std::vector<float>& p, std::size_t from, std::size_t n, float value) {
  for (std::size_t i = from; i < from + n; ++i)
    if (p[i] != value) return false;
  return true;
}

TEST(GptModel, InitialisesAsGpt2) {
  const GptShape shape{2, 64, 4, 16, 1000};
  const Layout at(shape);
  std::vector<float> params(at.total, 42.0f);
  init_gpt_parameters(shape, 9, params);
  // wte: n = 64000 draws; standard errors 0.02 / sqrt(n) (mean), 0.02 / sqrt(2 n) (std).
  const auto [wte_mean, wte_std] = mean_std(params.data() + at.wte, at.v * at.h);
  EXPECT_NEAR(wte_mean, 0.0, 5 * 0.02 / std::sqrt(64000.0));
  EXPECT_NEAR(wte_std, 0.02, 5 * 0.02 / std::sqrt(128000.0));
  const auto [fc1_mean, fc1_std] = mean_std(params.data() + at.fc1_w(1), at.f * at.h);
  EXPECT_NEAR(fc1_mean, 0.0, 5 * 0.02 / std::sqrt(16384.0));
  EXPECT_NEAR(fc1_std, 0.02, 5 * 0.02 / std::sqrt(2.0 * 16384));
  // Residual projections: 0.02 / sqrt(2 L) = 0.01.
  const auto [fc2_mean, fc2_std] = mean_std(params.data() + at.fc2_w(0), at.h * at.f);
  EXPECT_NEAR(fc2_mean, 0.0, 5 * 0.01 / std::sqrt(16384.0));
  EXPECT_NEAR(fc2_std, 0.01, 5 * 0.01 / std::sqrt(2.0 * 16384));
  for (std::size_t l = 0; l < at.layers; ++l) {
    const std::size_t block = at.block0 + l * at.block_size;
    EXPECT_TRUE(all_equal(params, block, at.h, 1.0f));                        // ln1 gamma
    EXPECT_TRUE(all_equal(params, block + at.h, at.h, 0.0f));                 // ln1 beta
    EXPECT_TRUE(all_equal(params, at.proj_w(l) - 3 * at.h, 3 * at.h, 0.0f));  // qkv bias
    EXPECT_TRUE(all_equal(params, at.ln2_gamma(l) - at.h, at.h, 0.0f));       // proj bias
    EXPECT_TRUE(all_equal(params, at.ln2_gamma(l), at.h, 1.0f));
    EXPECT_TRUE(all_equal(params, at.ln2_gamma(l) + at.h, at.h, 0.0f));
    EXPECT_TRUE(all_equal(params, at.fc2_w(l) - at.f, at.f, 0.0f));         // fc1 bias
    EXPECT_TRUE(all_equal(params, at.fc2_w(l) + at.h * at.f, at.h, 0.0f));  // fc2 bias
  }
  EXPECT_TRUE(all_equal(params, at.ln_f_gamma, at.h, 1.0f));
  EXPECT_TRUE(all_equal(params, at.ln_f_beta, at.h, 0.0f));
  std::vector<float> again(at.total), other(at.total);
  init_gpt_parameters(shape, 9, again);
  init_gpt_parameters(shape, 10, other);
  EXPECT_EQ(again, params);
  EXPECT_NE(other, params);
}

TEST(GptModel, ActivationBytesEqualTheAllocation) {
  const GptShape shape = tiny_shape();
  std::vector<float> params = random_params(shape, 1), grads(params.size());
  const GptModel model(shape, host(params), host(grads), ledger());
  // T = 8 rows: residuals (L + 1) T H, ln_f out T H, two gradients 2 T H, logits T V,
  // ln_f statistics 2 T, ln_f gradient scratch 2 H, the fp64 loss; plus every block's own buffers.
  const std::int64_t own = 4 * (3 * 64 + 64 + 2 * 64 + 8 * 11 + 16 + 16) + 8;
  const std::int64_t blocks =
      2 * TransformerBlock::activation_bytes(TransformerBlockShape{8, 2, 4, 4, 2, 0.0f});
  EXPECT_EQ(GptModel::activation_bytes(shape), own + blocks);
  EXPECT_EQ(model.activation_bytes(), own + blocks);
}

TEST(GptModel, SixteenBitActivationBytesKeepStatisticsAndTheLossWide) {
  GptShape shape = tiny_shape();
  shape.dtype = ops::DType::bf16;
  // T = 8 rows: residuals, ln_f out, two gradients (L + 4) T H and logits T V at 2 bytes;
  // ln_f statistics 2 T and gradient scratch 2 H at 4 bytes; the loss at 8; plus the blocks.
  const std::int64_t own = 2 * (6 * 64 + 8 * 11) + 4 * (16 + 16) + 8;
  const std::int64_t blocks = 2 * TransformerBlock::activation_bytes(
                                      TransformerBlockShape{8, 2, 4, 4, 2, 0.0f, ops::DType::bf16});
  EXPECT_EQ(GptModel::activation_bytes(shape), own + blocks);
}

TEST(GptModel, RejectsBadInputNamingIt) {
  const GptShape shape = tiny_shape();
  std::vector<float> params = random_params(shape, 1), grads(params.size(), 0.0f);
  GptModel model(shape, host(params), host(grads), ledger());
  std::vector<int> bad = kTokens;
  bad[5] = 11;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { model.forward_backward(make_ids(bad), make_ids(kTargets), 1.0f, BlockDropout{}); },
      "tokens[5] (sample 1, position 1) is 11, expected a token id in [0, 11)"));
  bad = kTargets;
  bad[2] = -1;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { model.forward_backward(make_ids(kTokens), make_ids(bad), 1.0f, BlockDropout{}); },
      "targets[2] (sample 0, position 2) is -1"));
  EXPECT_TRUE(all_equal(grads, 0, grads.size(), 0.0f));  // nothing ran
  const std::vector<int> six(6, 1);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { model.forward_backward(make_ids(six), make_ids(six), 1.0f, BlockDropout{}); },
      "tokens has 6 ids, expected B * 4 with 1 <= B <= 2"));
  std::vector<float> short_grads(grads.size() - 1);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { GptModel(shape, host(params), host(short_grads), ledger()); },
      "grads has 1879 floats, expected 1880"));
  GptShape odd = shape;
  odd.heads = 3;
  EXPECT_THROW(GptModel::parameter_count(odd), std::invalid_argument);
  odd = shape;
  odd.vocab = 0;
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { GptModel::parameter_count(odd); },
                                                   "vocab is 0, expected >= 1"));
}

TEST(GptModel, UnitsFollowTheFlatLayout) {
  const GptShape shape = tiny_shape();
  const Layout at(shape);
  const std::vector<std::int64_t> counts = GptModel::unit_parameter_counts(shape);
  const std::vector<std::int64_t> expected = {
      static_cast<std::int64_t>(at.block0),  // wte [V, H] + wpe [S, H]
      static_cast<std::int64_t>(at.block_size), static_cast<std::int64_t>(at.block_size),
      static_cast<std::int64_t>(at.total - at.ln_f_gamma)};  // ln_f gamma + beta
  EXPECT_EQ(counts, expected);
  std::int64_t sum = 0;
  for (const std::int64_t n : counts) sum += n;
  EXPECT_EQ(sum, GptModel::parameter_count(shape));

  std::vector<float> params(at.total), grads(at.total);
  const GptBuffers windows = GptModel::flat_windows(shape, host(params), host(grads));
  EXPECT_EQ(windows.embed_params.data(), params.data() + at.wte);
  EXPECT_EQ(floats(windows.embed_grads), at.block0);
  ASSERT_EQ(windows.block_params.size(), 2u);
  ASSERT_EQ(windows.block_grads.size(), 2u);
  EXPECT_EQ(windows.block_params[1].data(), params.data() + at.block0 + at.block_size);
  EXPECT_EQ(windows.block_grads[0].data(), grads.data() + at.block0);
  EXPECT_EQ(floats(windows.block_grads[1]), at.block_size);
  EXPECT_EQ(windows.lnf_params.data(), params.data() + at.ln_f_gamma);
  EXPECT_EQ(windows.lnf_grads.data(), grads.data() + at.ln_f_gamma);
  EXPECT_EQ(floats(windows.lnf_grads), 2 * at.h);
}

/// Fills `buffer` with NaN: a released gathered buffer, so any read of it poisons the result.
void release(std::vector<float>& buffer) {
  std::fill(buffer.begin(), buffer.end(), std::numeric_limits<float>::quiet_NaN());
}

TEST(GptModel, ZeroThreeStagesOnOneSharedLayerBufferMatchTheFlatModel) {
  GptShape shape = tiny_shape();
  shape.dropout = 0.25f;
  shape.max_micro_batch = 1;
  const Layout at(shape);
  std::vector<float> params(at.total), flat_grads(at.total, 0.0f), grads(at.total, 0.0f);
  init_gpt_parameters(shape, 17, params);
  GptModel flat(shape, host(params), host(flat_grads), ledger());

  // ZeRO-3 style: embeddings and ln_f are windows of the full buffers; every block reads and
  // writes one layer buffer, gathered from params before each of its calls.
  std::vector<float> layer_params(at.block_size), layer_grads(at.block_size);
  release(layer_params);
  release(layer_grads);
  GptBuffers buffers = GptModel::flat_windows(shape, host(params), host(grads));
  buffers.block_params.assign(at.layers, host(layer_params));
  buffers.block_grads.assign(at.layers, host(layer_grads));
  GptModel staged(shape, buffers, ledger());
  const auto gather = [&](std::size_t l) {
    const auto from = params.begin() + static_cast<std::ptrdiff_t>(at.block0 + l * at.block_size);
    std::copy(from, from + static_cast<std::ptrdiff_t>(at.block_size), layer_params.begin());
  };

  double flat_loss = 0.0, staged_loss = 0.0;
  staged.zero_loss();
  for (std::size_t b = 0; b < 2; ++b) {
    const auto first = kTokens.begin() + static_cast<std::ptrdiff_t>(4 * b);
    const ops::Tensor tokens = make_ids(std::vector<int>(first, first + 4));
    const auto target = kTargets.begin() + static_cast<std::ptrdiff_t>(4 * b);
    const ops::Tensor targets = make_ids(std::vector<int>(target, target + 4));
    const BlockDropout dropout{99, 5, static_cast<std::int64_t>(4 * b)};
    flat_loss += flat.forward_backward(tokens, targets, 0.5f, dropout);

    staged.embed_forward(tokens);
    for (std::size_t l = 0; l < at.layers; ++l) {
      gather(l);
      staged.block_forward(static_cast<int>(l), dropout);
      release(layer_params);
    }
    staged.head_forward_backward(targets, 0.5f);
    for (std::size_t l = at.layers; l-- > 0;) {
      gather(l);
      std::fill(layer_grads.begin(), layer_grads.end(), 0.0f);
      staged.block_backward(static_cast<int>(l));
      for (std::size_t i = 0; i < at.block_size; ++i)
        grads[at.block0 + l * at.block_size + i] += layer_grads[i];
      release(layer_params);
      release(layer_grads);
    }
    staged.embed_backward();
  }
  staged_loss = loss_of(staged);  // both micro-batches' losses, summed in the same order
  // The same float operations in the same order: equal, not merely close.
  EXPECT_EQ(staged_loss, flat_loss);
  EXPECT_EQ(grads, flat_grads);
  // Every unit received gradient (the comparison is not between two untouched buffers).
  std::size_t unit_start = 0;
  for (const std::int64_t count : GptModel::unit_parameter_counts(shape)) {
    const auto n = static_cast<std::size_t>(count);
    EXPECT_FALSE(all_equal(grads, unit_start, n, 0.0f)) << "unit at " << unit_start;
    unit_start += n;
  }
}

TEST(GptModel, StageCallsOutOfOrderThrowNamingTheCall) {
  const GptShape shape = tiny_shape();
  std::vector<float> params = random_params(shape, 1), grads(params.size(), 0.0f);
  GptModel model(shape, host(params), host(grads), ledger());
  const ops::Tensor tokens = make_ids(kTokens), targets = make_ids(kTargets);
  const auto out_of_order = [](const auto& call, const std::string& name) {
    return throws_naming<std::logic_error>(call, "GptModel::" + name + " called out of order");
  };
  EXPECT_TRUE(out_of_order([&] { model.block_forward(0, BlockDropout{}); }, "block_forward(0)"));
  EXPECT_TRUE(out_of_order([&] { model.embed_backward(); }, "embed_backward"));
  model.embed_forward(tokens);
  EXPECT_TRUE(throws_naming<std::logic_error>(
      [&] { model.block_forward(1, BlockDropout{}); },
      "block_forward(1) called out of order: the next stage call must be block_forward(0)"));
  model.block_forward(0, BlockDropout{});
  EXPECT_TRUE(
      out_of_order([&] { model.head_forward_backward(targets, 1.0f); }, "head_forward_backward"));
  EXPECT_TRUE(out_of_order([&] { model.block_backward(0); }, "block_backward(0)"));
  EXPECT_TRUE(
      throws_naming<std::invalid_argument>([&] { model.block_forward(2, BlockDropout{}); },
                                           "block_forward: layer is 2, expected in [0, 2)"));
  model.block_forward(1, BlockDropout{});
  EXPECT_TRUE(out_of_order([&] { model.block_forward(1, BlockDropout{}); }, "block_forward(1)"));
  EXPECT_TRUE(all_equal(grads, 0, grads.size(), 0.0f));  // no backward ran so far
  model.head_forward_backward(targets, 1.0f);
  EXPECT_TRUE(throws_naming<std::logic_error>(
      [&] { model.block_backward(0); },
      "block_backward(0) called out of order: the next stage call must be block_backward(1)"));
  model.block_backward(1);
  EXPECT_TRUE(out_of_order([&] { model.embed_backward(); }, "embed_backward"));
  model.block_backward(0);
  model.embed_backward();
  EXPECT_TRUE(out_of_order([&] { model.embed_backward(); }, "embed_backward"));
  EXPECT_TRUE(out_of_order([&] { model.block_backward(0); }, "block_backward(0)"));
  // The rejected calls changed nothing: the gradients are those of one clean micro-batch.
  std::vector<float> clean(params.size(), 0.0f);
  GptModel reference(shape, host(params), host(clean), ledger());
  reference.forward_backward(tokens, targets, 1.0f, BlockDropout{});
  EXPECT_EQ(grads, clean);
}

TEST(GptModel, RejectsUnitBuffersOfTheWrongLengthNamingThem) {
  const GptShape shape = tiny_shape();
  const Layout at(shape);
  std::vector<float> params(at.total), grads(at.total), short_block(at.block_size - 1);
  GptBuffers buffers = GptModel::flat_windows(shape, host(params), host(grads));
  buffers.block_grads[1] = host(short_block);
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { GptModel(shape, buffers, ledger()); },
                                                   "block_grads[1] has 871 floats, expected 872"));
  buffers = GptModel::flat_windows(shape, host(params), host(grads));
  buffers.block_params.pop_back();
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { GptModel(shape, buffers, ledger()); },
                                                   "block_params has 1 spans, expected 2"));
  buffers = GptModel::flat_windows(shape, host(params), host(grads));
  buffers.lnf_params = buffers.lnf_params.window(0, {static_cast<std::int64_t>(at.h)});
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { GptModel(shape, buffers, ledger()); },
                                                   "lnf_params has 8 floats, expected 16"));
}

}  // namespace
}  // namespace scaletune::kernels
