// Causal multi-head attention forward and backward against naive loops in double and central
// finite differences of a scalar loss on a tiny case (B=2, H=2, S=5, Dh=3).

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/host/attention.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::throws_naming;
using test::to_doubles;

constexpr std::size_t kB = 2, kH = 2, kS = 5, kDh = 3;

/// Random q, k, v and dout (= the weights of the loss sum(out * dout)) of one shape.
struct Problem {
  std::size_t seq;
  Tensor4 q, k, v, dout;
  explicit Problem(std::size_t seq_len)
      : seq(seq_len),
        q("q", kB, kH, seq_len, kDh),
        k("k", kB, kH, seq_len, kDh),
        v("v", kB, kH, seq_len, kDh),
        dout("dout", kB, kH, seq_len, kDh) {
    fill_uniform(q, 1, -1.0f, 1.0f);
    fill_uniform(k, 2, -1.0f, 1.0f);
    fill_uniform(v, 3, -1.0f, 1.0f);
    fill_uniform(dout, 4, -1.0f, 1.0f);
  }
  std::size_t at(std::size_t bh, std::size_t i, std::size_t d) const {
    return (bh * seq + i) * kDh + d;
  }
  std::size_t pat(std::size_t bh, std::size_t i, std::size_t j) const {
    return (bh * seq + i) * seq + j;
  }
};

/// P[b,h,i,j] = exp(q_i . k_j / sqrt(Dh)) / sum_{l<=i} exp(q_i . k_l / sqrt(Dh)) for j <= i, else
/// 0.
std::vector<double> naive_probs(const Problem& pr) {
  const std::vector<double> q = to_doubles(pr.q), k = to_doubles(pr.k);
  std::vector<double> p(kB * kH * pr.seq * pr.seq, 0.0);
  for (std::size_t bh = 0; bh < kB * kH; ++bh)
    for (std::size_t i = 0; i < pr.seq; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j <= i; ++j) {
        double dot = 0.0;
        for (std::size_t d = 0; d < kDh; ++d) dot += q[pr.at(bh, i, d)] * k[pr.at(bh, j, d)];
        p[pr.pat(bh, i, j)] = std::exp(dot / std::sqrt(double{kDh}));
        sum += p[pr.pat(bh, i, j)];
      }
      for (std::size_t j = 0; j <= i; ++j) p[pr.pat(bh, i, j)] /= sum;
    }
  return p;
}

/// out[b,h,i,d] = sum_j P[b,h,i,j] v[b,h,j,d].
std::vector<double> naive_out(const Problem& pr) {
  const std::vector<double> p = naive_probs(pr), v = to_doubles(pr.v);
  std::vector<double> out(pr.q.size(), 0.0);
  for (std::size_t bh = 0; bh < kB * kH; ++bh)
    for (std::size_t i = 0; i < pr.seq; ++i)
      for (std::size_t j = 0; j < pr.seq; ++j)
        for (std::size_t d = 0; d < kDh; ++d)
          out[pr.at(bh, i, d)] += p[pr.pat(bh, i, j)] * v[pr.at(bh, j, d)];
  return out;
}

struct Grads {
  std::vector<double> dq, dk, dv;
};

/// The chain rule written out element by element for loss = sum(out * dout).
Grads naive_backward(const Problem& pr) {
  const std::vector<double> p = naive_probs(pr), q = to_doubles(pr.q), k = to_doubles(pr.k),
                            v = to_doubles(pr.v), dout = to_doubles(pr.dout);
  const double c = 1.0 / std::sqrt(double{kDh});
  Grads g{std::vector<double>(q.size()), std::vector<double>(q.size()),
          std::vector<double>(q.size())};
  for (std::size_t bh = 0; bh < kB * kH; ++bh)
    for (std::size_t i = 0; i < pr.seq; ++i) {
      std::vector<double> dp(pr.seq, 0.0);
      double dot = 0.0;
      for (std::size_t j = 0; j <= i; ++j) {
        for (std::size_t d = 0; d < kDh; ++d) {
          dp[j] += dout[pr.at(bh, i, d)] * v[pr.at(bh, j, d)];
          g.dv[pr.at(bh, j, d)] += p[pr.pat(bh, i, j)] * dout[pr.at(bh, i, d)];
        }
        dot += p[pr.pat(bh, i, j)] * dp[j];
      }
      for (std::size_t j = 0; j <= i; ++j) {
        const double ds = p[pr.pat(bh, i, j)] * (dp[j] - dot);
        for (std::size_t d = 0; d < kDh; ++d) {
          g.dq[pr.at(bh, i, d)] += c * ds * k[pr.at(bh, j, d)];
          g.dk[pr.at(bh, j, d)] += c * ds * q[pr.at(bh, i, d)];
        }
      }
    }
  return g;
}

/// The kernel's gradients for `pr` (after its forward), in double.
Grads kernel_backward(const Problem& pr) {
  const AttentionWorkspace ws(kB, kH, pr.seq);
  const Tensor4 out("out", kB, kH, pr.seq, kDh), dq("dq", kB, kH, pr.seq, kDh),
      dk("dk", kB, kH, pr.seq, kDh), dv("dv", kB, kH, pr.seq, kDh);
  for (const Tensor4& t : {dq, dk, dv}) Kokkos::deep_copy(t, 9.0f);
  attention_forward(pr.q, pr.k, pr.v, ws, out);
  Kokkos::deep_copy(ws.dprobs, 9.0f);  // scratch: stale values must not matter
  attention_backward(pr.q, pr.k, pr.v, pr.dout, ws, dq, dk, dv);
  return {to_doubles(dq), to_doubles(dk), to_doubles(dv)};
}

TEST(Attention, ForwardMatchesNaive) {
  const Problem pr(kS);
  const AttentionWorkspace ws(kB, kH, kS);
  const Tensor4 out("out", kB, kH, kS, kDh);
  Kokkos::deep_copy(out, 9.0f);
  Kokkos::deep_copy(ws.probs, 9.0f);
  attention_forward(pr.q, pr.k, pr.v, ws, out);
  EXPECT_TRUE(all_near(to_doubles(out), naive_out(pr), 1e-6, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(ws.probs), naive_probs(pr), 1e-6, 1e-5));
}

TEST(Attention, ProbabilitiesAreCausalAndRowsSumToOne) {
  const Problem pr(kS);
  const AttentionWorkspace ws(kB, kH, kS);
  const Tensor4 out("out", kB, kH, kS, kDh);
  Kokkos::deep_copy(ws.probs, 9.0f);
  attention_forward(pr.q, pr.k, pr.v, ws, out);
  for (std::size_t b = 0; b < kB; ++b)
    for (std::size_t h = 0; h < kH; ++h)
      for (std::size_t i = 0; i < kS; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < kS; ++j) {
          if (j > i) {
            EXPECT_EQ(ws.probs(b, h, i, j), 0.0f);
          }
          sum += ws.probs(b, h, i, j);
        }
        EXPECT_NEAR(sum, 1.0, 1e-6);
      }
}

TEST(Attention, SequenceOfOneCopiesValuesAndPassesGradientToValuesOnly) {
  // With one position the only probability is 1: out = v, dv = dout, dq = dk = 0.
  const Problem pr(1);
  const AttentionWorkspace ws(kB, kH, 1);
  const Tensor4 out("out", kB, kH, 1, kDh);
  attention_forward(pr.q, pr.k, pr.v, ws, out);
  EXPECT_TRUE(all_near(to_doubles(out), to_doubles(pr.v), 1e-7));
  const Grads g = kernel_backward(pr);
  EXPECT_TRUE(all_near(g.dv, to_doubles(pr.dout), 1e-7));
  EXPECT_TRUE(all_near(g.dq, std::vector<double>(g.dq.size(), 0.0), 1e-7));
  EXPECT_TRUE(all_near(g.dk, std::vector<double>(g.dk.size(), 0.0), 1e-7));
}

TEST(Attention, BackwardMatchesNaive) {
  const Problem pr(kS);
  const Grads want = naive_backward(pr);
  const Grads got = kernel_backward(pr);
  EXPECT_TRUE(all_near(got.dq, want.dq, 1e-6, 1e-5));
  EXPECT_TRUE(all_near(got.dk, want.dk, 1e-6, 1e-5));
  EXPECT_TRUE(all_near(got.dv, want.dv, 1e-6, 1e-5));
}

/// loss = sum(out * dout) with out from the kernel's forward, accumulated in double.
double kernel_loss(const Problem& pr) {
  const AttentionWorkspace ws(kB, kH, pr.seq);
  const Tensor4 out("out", kB, kH, pr.seq, kDh);
  attention_forward(pr.q, pr.k, pr.v, ws, out);
  double sum = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) sum += double{out.data()[i]} * pr.dout.data()[i];
  return sum;
}

/// Central differences of kernel_loss over every element of `x` (one of pr's inputs).
std::vector<double> finite_differences(const Problem& pr, const Tensor4& x) {
  constexpr float kEps = 1e-2f;
  std::vector<double> grad(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float saved = x.data()[i];
    x.data()[i] = saved + kEps;
    const double plus = kernel_loss(pr);
    x.data()[i] = saved - kEps;
    const double minus = kernel_loss(pr);
    x.data()[i] = saved;
    grad[i] = (plus - minus) / (2.0 * kEps);
  }
  return grad;
}

TEST(Attention, BackwardMatchesFiniteDifferences) {
  const Problem pr(kS);
  const Grads got = kernel_backward(pr);
  EXPECT_TRUE(all_near(got.dq, finite_differences(pr, pr.q), 1e-3, 1e-2));
  EXPECT_TRUE(all_near(got.dk, finite_differences(pr, pr.k), 1e-3, 1e-2));
  EXPECT_TRUE(all_near(got.dv, finite_differences(pr, pr.v), 1e-3, 1e-2));
}

TEST(Attention, WorkspaceBytesMatchAllocation) {
  const AttentionWorkspace ws(3, 4, 7);
  const auto allocated =
      static_cast<std::int64_t>(sizeof(float) * (ws.probs.span() + ws.dprobs.span()));
  EXPECT_EQ(AttentionWorkspace::bytes(3, 4, 7), allocated);
  EXPECT_EQ(AttentionWorkspace::bytes(3, 4, 7), 4 * 7 * 7 * (3 * 4 + 1));
}

TEST(Attention, RejectsBadShapesAndAliasing) {
  const Problem pr(kS);
  const AttentionWorkspace ws(kB, kH, kS), short_ws(kB, kH, kS - 1);
  const Tensor4 out("out", kB, kH, kS, kDh), narrow("narrow", kB, kH, kS, kDh - 1);
  const Tensor4 no_dim("no_dim", kB, kH, kS, 0), out0("out0", kB, kH, kS, 0);
  EXPECT_TRUE(
      throws_naming<std::invalid_argument>([&] { attention_forward(pr.q, narrow, pr.v, ws, out); },
                                           "k is [2, 2, 5, 2], expected [2, 2, 5, 3]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_forward(pr.q, pr.k, pr.v, short_ws, out); },
      "ws.probs is [2, 2, 4, 4], expected [2, 2, 5, 5]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_forward(no_dim, no_dim, no_dim, ws, out0); }, "Dh >= 1"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_forward(pr.q, pr.k, pr.v, ws, pr.v); }, "out must not alias v"));
  AttentionWorkspace bad_scratch(kB, kH, kS);
  bad_scratch.dprobs = Tensor2("dprobs", kS, kS + 1);
  const Tensor4 dq("dq", kB, kH, kS, kDh), dk("dk", kB, kH, kS, kDh);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_backward(pr.q, pr.k, pr.v, pr.dout, bad_scratch, dq, dk, out); },
      "ws.dprobs is [5, 6], expected [5, 5]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_backward(pr.q, pr.k, pr.v, pr.dout, ws, dq, dq, out); },
      "dk must not alias dq"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_backward(pr.q, pr.k, pr.v, pr.dout, ws, dq, dk, pr.dout); },
      "dv must not alias dout"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { attention_backward(pr.q, pr.k, pr.v, narrow, ws, dq, dk, out); },
      "dout is [2, 2, 5, 2]"));
}

}  // namespace
}  // namespace scaletune::kernels
