// The MLP (on the host backend) against a naive double-precision reference (forward triple loop
// with ReLU after every layer but, unless relu_last, the last; backward by the chain rule), central
// finite differences, the initialisation's distribution, and parameter counts of MLPerf DLRM's
// MLPs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/dlrm/mlp.hpp"
#include "kernels/host/host_backend.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

/// Where layer i's weight [out, in] and bias [out] start in the flat parameter buffer.
struct LayerSlots {
  std::size_t in, out, weight, bias;
};

std::vector<LayerSlots> layer_slots(const std::vector<int>& widths) {
  std::vector<LayerSlots> slots;
  std::size_t offset = 0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    const auto in = static_cast<std::size_t>(widths[i]);
    const auto out = static_cast<std::size_t>(widths[i + 1]);
    slots.push_back({in, out, offset, offset + out * in});
    offset += out * in + out;
  }
  return slots;
}

/// Per layer: pre-activations z = x W^T + b and outputs (relu(z) or z), each [N * out].
struct NaiveForward {
  std::vector<std::vector<double>> pre, out;
};

bool naive_has_relu(std::size_t layer, std::size_t layers, bool relu_last) {
  return relu_last || layer + 1 < layers;
}

NaiveForward naive_forward(const std::vector<int>& widths, bool relu_last,
                           std::span<const float> params, std::span<const float> x, std::size_t n) {
  const std::vector<LayerSlots> slots = layer_slots(widths);
  NaiveForward fwd;
  std::vector<double> in(x.begin(), x.end());
  for (std::size_t l = 0; l < slots.size(); ++l) {
    const LayerSlots& s = slots[l];
    std::vector<double> pre(n * s.out), out(n * s.out);
    for (std::size_t row = 0; row < n; ++row)
      for (std::size_t o = 0; o < s.out; ++o) {
        double sum = params[s.bias + o];
        for (std::size_t f = 0; f < s.in; ++f)
          sum += in[row * s.in + f] * params[s.weight + o * s.in + f];
        pre[row * s.out + o] = sum;
        const bool relu = naive_has_relu(l, slots.size(), relu_last);
        out[row * s.out + o] = relu && sum <= 0.0 ? 0.0 : sum;
      }
    fwd.pre.push_back(pre);
    fwd.out.push_back(out);
    in = out;
  }
  return fwd;
}

struct NaiveGrads {
  std::vector<double> params, dx;
};

/// The chain rule written out: dy is d loss / d output [N * widths.back()].
NaiveGrads naive_backward(const std::vector<int>& widths, bool relu_last,
                          std::span<const float> params, std::span<const float> x, std::size_t n,
                          const NaiveForward& fwd, std::span<const float> dy) {
  const std::vector<LayerSlots> slots = layer_slots(widths);
  NaiveGrads grads{std::vector<double>(params.size(), 0.0), {}};
  std::vector<double> g(dy.begin(), dy.end());
  for (std::size_t l = slots.size(); l-- > 0;) {
    const LayerSlots& s = slots[l];
    if (naive_has_relu(l, slots.size(), relu_last))
      for (std::size_t k = 0; k < g.size(); ++k) g[k] = fwd.pre[l][k] > 0.0 ? g[k] : 0.0;
    const std::vector<double> in =
        l == 0 ? std::vector<double>(x.begin(), x.end()) : fwd.out[l - 1];
    std::vector<double> g_in(n * s.in, 0.0);
    for (std::size_t row = 0; row < n; ++row)
      for (std::size_t o = 0; o < s.out; ++o) {
        const double go = g[row * s.out + o];
        grads.params[s.bias + o] += go;
        for (std::size_t f = 0; f < s.in; ++f) {
          grads.params[s.weight + o * s.in + f] += go * in[row * s.in + f];
          g_in[row * s.in + f] += go * params[s.weight + o * s.in + f];
        }
      }
    g = g_in;
  }
  grads.dx = g;
  return grads;
}

std::span<const float> flat(const Tensor2& t) {
  return {t.data(), t.size()};
}

/// A host tensor [N, F] as the op layer's view of it.
ops::Tensor op(const Tensor2& t) {
  return {t.data(),
          ops::DType::fp32,
          {static_cast<std::int64_t>(t.extent(0)), static_cast<std::int64_t>(t.extent(1))}};
}

/// An op-layer view [N, F] (host memory) as a host tensor.
Tensor2 host(const ops::Tensor& t) {
  return Tensor2(t.as<float>(), static_cast<std::size_t>(t.dim(0)),
                 static_cast<std::size_t>(t.dim(1)));
}

/// fp32 parameter windows over host vectors (values and master alike, as under fp32).
MlpParameters windows(std::vector<float>& params, std::vector<float>& grads) {
  const ops::Tensor values(params.data(), ops::DType::fp32,
                           {static_cast<std::int64_t>(params.size())});
  return {.values = values,
          .master = values,
          .grads = ops::Tensor(grads.data(), ops::DType::fp32,
                               {static_cast<std::int64_t>(grads.size())}),
          .offset = 0};
}

/// Parameters drawn by init_mlp_parameters and a gradient buffer full of stale values, on the
/// host backend.
struct MlpCase {
  std::vector<int> widths;
  bool relu_last;
  std::vector<float> params, grads;
  HostBackend backend;
  ops::MemoryLedger ledger{backend};

  MlpCase(std::vector<int> w, bool relu, std::uint64_t seed)
      : widths(std::move(w)),
        relu_last(relu),
        params(static_cast<std::size_t>(mlp_parameter_count(widths))),
        grads(params.size(), 9.0f) {
    init_mlp_parameters(widths, seed, params);
  }
  Mlp make(int max_batch) {
    return Mlp(widths, relu_last, windows(params, grads), ledger, max_batch);
  }
};

const std::vector<int> kWidths{7, 16, 9, 4};
constexpr int kMaxBatch = 8;

TEST(Mlp, ForwardMatchesNaiveWithReluPlacementAndSmallBatches) {
  for (const bool relu_last : {false, true}) {
    MlpCase c(kWidths, relu_last, 1);
    Mlp mlp = c.make(kMaxBatch);
    const Tensor2 full("full", kMaxBatch, 7), x("x", 5, 7);
    fill_uniform(full, 2, -2.0f, 2.0f);
    fill_uniform(x, 3, -2.0f, 2.0f);
    mlp.forward(op(full));  // leaves values in rows the smaller batch must not read
    const Tensor2 y = host(mlp.forward(op(x)));
    ASSERT_EQ(y.extent(0), 5u);
    ASSERT_EQ(y.extent(1), 4u);
    const NaiveForward want = naive_forward(kWidths, relu_last, c.params, flat(x), 5);
    EXPECT_TRUE(all_near(to_doubles(y), want.out.back(), 1e-5, 1e-5)) << relu_last;
    // Without relu_last the output keeps its negative values: the ReLU placement is observable.
    bool any_negative = false;
    for (const double v : want.pre.back()) any_negative = any_negative || v < 0.0;
    EXPECT_TRUE(any_negative);
  }
}

TEST(Mlp, BackwardMatchesNaiveChainRule) {
  for (const bool relu_last : {false, true}) {
    MlpCase c(kWidths, relu_last, 4);
    Mlp mlp = c.make(kMaxBatch);
    constexpr std::size_t kN = 6;
    const Tensor2 x("x", kN, 7), dy("dy", kN, 4), dx("dx", kN, 7);
    fill_uniform(x, 5, -2.0f, 2.0f);
    fill_uniform(dy, 6, -1.0f, 1.0f);
    Kokkos::deep_copy(dx, 9.0f);
    mlp.forward(op(x));
    mlp.backward(op(dy), op(dx));
    const NaiveForward fwd = naive_forward(kWidths, relu_last, c.params, flat(x), kN);
    const NaiveGrads want =
        naive_backward(kWidths, relu_last, c.params, flat(x), kN, fwd, flat(dy));
    EXPECT_TRUE(
        all_near(std::vector<double>(c.grads.begin(), c.grads.end()), want.params, 1e-5, 1e-5))
        << relu_last;
    EXPECT_TRUE(all_near(to_doubles(dx), want.dx, 1e-5, 1e-5)) << relu_last;

    std::fill(c.grads.begin(), c.grads.end(), 9.0f);
    mlp.backward(op(dy), ops::Tensor());  // no dx wanted: the parameter gradients alone
    EXPECT_TRUE(
        all_near(std::vector<double>(c.grads.begin(), c.grads.end()), want.params, 1e-5, 1e-5));
  }
}

/// The ReLU on/off pattern of every rectified pre-activation of the naive forward.
std::vector<bool> relu_pattern(const NaiveForward& fwd, bool relu_last) {
  std::vector<bool> pattern;
  for (std::size_t l = 0; l < fwd.pre.size(); ++l)
    if (naive_has_relu(l, fwd.pre.size(), relu_last))
      for (const double v : fwd.pre[l]) pattern.push_back(v > 0.0);
  return pattern;
}

TEST(Mlp, BackwardMatchesCentralFiniteDifferences) {
  // loss = sum c[n, o] y[n, o] (c fixed). Between ReLU kinks the network is affine in any single
  // parameter or input, so central differences have no truncation error as long as no
  // pre-activation changes sign (checked below with the naive forward). What remains is float
  // rounding of the forward: about 1e-7 relative on each of the 6 outputs (|y| < 3), so the loss
  // is off by < 2e-6 and the quotient by < 2 * 2e-6 / (2 h) = 2e-4 for h = 1e-2.
  constexpr float kH = 1e-2f;
  constexpr std::size_t kN = 3;
  const std::vector<int> widths{3, 5, 4, 2};
  for (const bool relu_last : {false, true}) {
    MlpCase c(widths, relu_last, 21);
    Mlp mlp = c.make(4);
    const Tensor2 x("x", kN, 3), weights("c", kN, 2), dx("dx", kN, 3);
    fill_uniform(x, 22, -1.0f, 1.0f);
    fill_uniform(weights, 23, -1.0f, 1.0f);
    const auto loss = [&] {
      const Tensor2 y = host(mlp.forward(op(x)));
      double sum = 0.0;
      for (std::size_t i = 0; i < y.size(); ++i) sum += double{weights.data()[i]} * y.data()[i];
      return sum;
    };
    const auto pattern = [&] {
      return relu_pattern(naive_forward(widths, relu_last, c.params, flat(x), kN), relu_last);
    };
    const std::vector<bool> base_pattern = pattern();
    int kinks_crossed = 0;
    const auto central = [&](float& v) {
      const float saved = v;
      v = saved + kH;
      const double up_at = v, up = loss();
      kinks_crossed += pattern() != base_pattern;
      v = saved - kH;
      const double down_at = v, down = loss();
      kinks_crossed += pattern() != base_pattern;
      v = saved;
      return (up - down) / (up_at - down_at);
    };
    loss();
    mlp.backward(op(weights), op(dx));
    const std::vector<double> grads(c.grads.begin(), c.grads.end());
    std::vector<double> fd_params, fd_x;
    for (float& p : c.params) fd_params.push_back(central(p));
    for (std::size_t i = 0; i < x.size(); ++i) fd_x.push_back(central(x.data()[i]));
    ASSERT_EQ(kinks_crossed, 0) << "a pre-activation lies within h of 0: pick other seeds";
    EXPECT_TRUE(all_near(grads, fd_params, 2e-4)) << relu_last;
    EXPECT_TRUE(all_near(to_doubles(dx), fd_x, 2e-4)) << relu_last;
  }
}

/// Expects the mean and standard deviation of `v` within 5 standard errors of N(0, sigma): the
/// mean's is sigma / sqrt(n), the sample standard deviation's sigma / sqrt(2 (n - 1)).
void expect_normal(std::span<const float> v, double sigma) {
  double sum = 0.0, sum_sq = 0.0;
  for (const float x : v) sum += x;
  const double n = static_cast<double>(v.size()), mean = sum / n;
  for (const float x : v) sum_sq += (x - mean) * (x - mean);
  const double stddev = std::sqrt(sum_sq / (n - 1));
  EXPECT_NEAR(mean, 0.0, 5 * sigma / std::sqrt(n)) << "n = " << n;
  EXPECT_NEAR(stddev, sigma, 5 * sigma / std::sqrt(2 * (n - 1))) << "n = " << n;
}

TEST(Mlp, InitDrawsDlrmNormalsLayerByLayer) {
  const std::vector<int> widths{256, 1024, 64};
  std::vector<float> params(static_cast<std::size_t>(mlp_parameter_count(widths)));
  init_mlp_parameters(widths, 7, params);
  const std::span<const float> all(params);
  for (const LayerSlots& s : layer_slots(widths)) {
    const auto in = static_cast<double>(s.in), out = static_cast<double>(s.out);
    expect_normal(all.subspan(s.weight, s.out * s.in), std::sqrt(2.0 / (out + in)));
    expect_normal(all.subspan(s.bias, s.out), std::sqrt(1.0 / out));
  }
}

TEST(Mlp, InitIsDeterministicForASeed) {
  std::vector<float> a(static_cast<std::size_t>(mlp_parameter_count(kWidths)));
  std::vector<float> b(a.size()), other(a.size());
  init_mlp_parameters(kWidths, 42, a);
  init_mlp_parameters(kWidths, 42, b);
  init_mlp_parameters(kWidths, 43, other);
  EXPECT_EQ(a, b);
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == other[i];
  EXPECT_EQ(same, 0u);
}

TEST(Mlp, ParameterCountsOfMlperfDlrm) {
  const std::vector<int> bottom{13, 512, 256, 128};
  EXPECT_EQ(mlp_parameter_count(bottom), 13 * 512 + 512 + 512 * 256 + 256 + 256 * 128 + 128);
  EXPECT_EQ(mlp_macs_per_sample(bottom), 13.0 * 512 + 512 * 256 + 256 * 128);
  const std::vector<int> top{479, 1024, 1024, 512, 256, 1};
  EXPECT_EQ(mlp_parameter_count(top), 479 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 512 + 512 +
                                          512 * 256 + 256 + 256 * 1 + 1);
  EXPECT_EQ(mlp_macs_per_sample(top),
            479.0 * 1024 + 1024 * 1024 + 1024 * 512 + 512 * 256 + 256 * 1);
}

TEST(Mlp, ActivationBytesEqualWhatTheConstructorAllocated) {
  MlpCase c(kWidths, false, 1);
  const Mlp mlp = c.make(kMaxBatch);
  EXPECT_EQ(mlp.activation_bytes(), Mlp::activation_bytes(kWidths, kMaxBatch, 4));
  EXPECT_EQ(c.ledger.bytes(), mlp.activation_bytes());
  // Documented: every layer's output plus two gradient buffers of the widest output.
  const std::int64_t values = kMaxBatch * (16 + 9 + 4 + 2 * 16);
  EXPECT_EQ(Mlp::activation_bytes(kWidths, kMaxBatch, 4), values * 4);
  EXPECT_EQ(Mlp::activation_bytes(kWidths, kMaxBatch, 2), values * 2);
}

TEST(Mlp, RejectsBadConstructionNamingTheArgument) {
  std::vector<float> params(static_cast<std::size_t>(mlp_parameter_count(kWidths)));
  std::vector<float> grads(params.size()), short_grads(params.size() - 1);
  HostBackend backend;
  ops::MemoryLedger ledger(backend);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { Mlp({5}, false, windows(params, grads), ledger, 4); },
      "widths [5], expected at least 2"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [] {
        mlp_parameter_count(std::vector<int>{3, 0, 2});
      },
      "widths [3, 0, 2]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { Mlp(kWidths, false, windows(params, short_grads), ledger, 4); },
      "grads has 320 floats, expected 321"));  // (7*16+16) + (16*9+9) + (9*4+4) = 321
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { init_mlp_parameters(kWidths, 1, short_grads); },
      "params has 320 floats, expected 321"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { Mlp(kWidths, false, windows(params, grads), ledger, 0); },
      "max_batch is 0, expected >= 1"));
}

TEST(Mlp, RejectsShapesThatDoNotMatch) {
  MlpCase c(kWidths, false, 1);
  Mlp mlp = c.make(kMaxBatch);
  const Tensor2 dy("dy", 2, 4), x6("x", 2, 6), big("x", kMaxBatch + 1, 7), x("x", 2, 7);
  const Tensor2 dy3("dy", 3, 4), dx4("dx", 2, 4);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { mlp.backward(op(dy), ops::Tensor()); }, "called before forward"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { mlp.forward(op(x6)); },
                                                         "x is [2, 6] fp32, expected [N, 7]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { mlp.forward(op(big)); },
                                                         "N <= max_batch 8"));
  mlp.forward(op(x));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { mlp.backward(op(dy3), ops::Tensor()); }, "dy is [3, 4] fp32, expected [2, 4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { mlp.backward(op(dy), op(dx4)); },
                                                         "dx is [2, 4] fp32, expected [2, 7]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { mlp.backward(op(dy), op(x)); },
                                                         "dx must not alias x or dy"));
}

TEST(Mlp, ReportsEachLayersGradientsAsBackwardWritesThem) {
  MlpCase c(kWidths, true, 3);
  MlpParameters at_1000 = windows(c.params, c.grads);
  at_1000.offset = 1000;
  Mlp mlp(c.widths, true, at_1000, c.ledger, kMaxBatch);
  const Tensor2 x("x", 3, 7), dy("dy", 3, 4);
  fill_uniform(x, 8, -1.0f, 1.0f);
  fill_uniform(dy, 9, -1.0f, 1.0f);
  mlp.forward(op(x));
  std::vector<std::int64_t> reported;
  mlp.backward(op(dy), ops::Tensor(), [&](std::int64_t first) { reported.push_back(first); });
  // Layers 2, 1, 0 in turn; each weight window starts after the layers before it.
  const std::vector<std::int64_t> want = {1000 + (7 * 16 + 16) + (16 * 9 + 9), 1000 + 7 * 16 + 16,
                                          1000};
  EXPECT_EQ(reported, want);
}

}  // namespace
}  // namespace scaletune::kernels
