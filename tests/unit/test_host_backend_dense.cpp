// HostBackend's dense ops against naive loops written here: GEMM in all four transpose forms and
// batched, linear layers, layer norm, the head layout of attention and GPT-2's token embedding.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using ops::GradMode;
using test::all_near;
using test::doubles;
using test::tensor_of;
using test::throws_naming;
using test::uniform_floats;

/// c = alpha op(a) op(b) + beta c for one [m, n] product; a is [m, k] or [k, m] (trans_a), b is
/// [k, n] or [n, k] (trans_b), row-major; in double.
std::vector<double> naive_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                               std::size_t k, double alpha, const float* a, const float* b,
                               double beta, const float* c) {
  std::vector<double> out(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::size_t p = 0; p < k; ++p)
        sum += double{trans_a ? a[p * m + i] : a[i * k + p]} *
               double{trans_b ? b[j * k + p] : b[p * n + j]};
      out[i * n + j] = alpha * sum + beta * c[i * n + j];
    }
  return out;
}

TEST(HostBackendDense, GemmInAllFourTransposeForms) {
  HostBackend backend;
  constexpr std::int64_t m = 3, n = 5, k = 4;
  for (const bool trans_a : {false, true})
    for (const bool trans_b : {false, true}) {
      std::vector<float> a = uniform_floats(m * k, 1), b = uniform_floats(k * n, 2);
      std::vector<float> c = uniform_floats(m * n, 3);
      const std::vector<double> want =
          naive_gemm(trans_a, trans_b, m, n, k, 1.5, a.data(), b.data(), 0.5, c.data());
      backend.gemm(trans_a, trans_b, 1.5f, tensor_of(a, {trans_a ? k : m, trans_a ? m : k}),
                   tensor_of(b, {trans_b ? n : k, trans_b ? k : n}), 0.5f, tensor_of(c, {m, n}));
      EXPECT_TRUE(all_near(doubles(c), want, 1e-5, 1e-5)) << trans_a << trans_b;
    }
}

TEST(HostBackendDense, GemmOfRankThreeTensorsMultipliesEachBatch) {
  HostBackend backend;
  constexpr std::int64_t batch = 3, m = 2, n = 4, k = 5;
  std::vector<float> a = uniform_floats(batch * k * m, 4), b = uniform_floats(batch * n * k, 5);
  std::vector<float> c = uniform_floats(batch * m * n, 6);
  std::vector<double> want;
  for (std::int64_t i = 0; i < batch; ++i) {
    const std::vector<double> one = naive_gemm(true, true, m, n, k, -1.0, a.data() + i * k * m,
                                               b.data() + i * n * k, 2.0, c.data() + i * m * n);
    want.insert(want.end(), one.begin(), one.end());
  }
  backend.gemm(true, true, -1.0f, tensor_of(a, {batch, k, m}), tensor_of(b, {batch, n, k}), 2.0f,
               tensor_of(c, {batch, m, n}));
  EXPECT_TRUE(all_near(doubles(c), want, 1e-5, 1e-5));
}

TEST(HostBackendDense, GemmRefusesShapesThatDoNotMultiply) {
  HostBackend backend;
  std::vector<float> a(12), b(12), c(12), c3(24), v(12);
  const auto refused = [&](bool ta, bool tb, const ops::Tensor& ta_, const ops::Tensor& tb_,
                           const ops::Tensor& tc, const char* needle) {
    return throws_naming<std::invalid_argument>(
        [&] { backend.gemm(ta, tb, 1.0f, ta_, tb_, 0.0f, tc); }, needle);
  };
  EXPECT_TRUE(refused(false, false, tensor_of(a, {3, 4}), tensor_of(b, {3, 4}),
                      tensor_of(c, {3, 4}), "a [3, 4] fp32 times b [3, 4] fp32 does not give c"));
  EXPECT_TRUE(refused(true, false, tensor_of(a, {4, 3}), tensor_of(b, {4, 3}), tensor_of(c, {4, 3}),
                      "a [4, 3] fp32^T"));
  EXPECT_TRUE(refused(false, true, tensor_of(a, {3, 4}), tensor_of(b, {3, 4}), tensor_of(c, {4, 3}),
                      "b [3, 4] fp32^T"));
  EXPECT_TRUE(refused(false, false, tensor_of(a, {2, 2, 3}), tensor_of(b, {2, 3, 2}),
                      tensor_of(c3, {3, 2, 4}), "does not give c [3, 2, 4]"));
  EXPECT_TRUE(refused(false, false, tensor_of(v, {12}), tensor_of(b, {12, 1}),
                      tensor_of(c, {1, 12}), "a is [12] fp32, expected rank 2 or 3"));
}

TEST(HostBackendDense, LinearForwardAndBackward) {
  HostBackend backend;
  constexpr std::size_t n = 4, f = 3, o = 2;
  std::vector<float> x = uniform_floats(n * f, 7), w = uniform_floats(o * f, 8);
  std::vector<float> b = uniform_floats(o, 9), y(n * o), dy = uniform_floats(n * o, 10);
  backend.linear_forward(tensor_of(x, {n, f}), tensor_of(w, {o, f}), tensor_of(b, {o}),
                         tensor_of(y, {n, o}));
  std::vector<double> want_y(n * o), want_dw(o * f), want_db(o), want_dx(n * f);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t j = 0; j < o; ++j) {
      want_y[r * o + j] = b[j];
      want_db[j] += dy[r * o + j];
      for (std::size_t i = 0; i < f; ++i) {
        want_y[r * o + j] += double{x[r * f + i]} * w[j * f + i];
        want_dw[j * f + i] += double{dy[r * o + j]} * x[r * f + i];
        want_dx[r * f + i] += double{dy[r * o + j]} * w[j * f + i];
      }
    }
  EXPECT_TRUE(all_near(doubles(y), want_y, 1e-6, 1e-6));
  std::vector<float> dw(o * f, 1.0f), db(o, 1.0f), dx(n * f);
  backend.linear_backward(tensor_of(x, {n, f}), tensor_of(w, {o, f}), tensor_of(dy, {n, o}),
                          tensor_of(dw, {o, f}), tensor_of(db, {o}), tensor_of(dx, {n, f}),
                          GradMode::overwrite);
  EXPECT_TRUE(all_near(doubles(dw), want_dw, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(db), want_db, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(dx), want_dx, 1e-6, 1e-6));
  backend.linear_backward(tensor_of(x, {n, f}), tensor_of(w, {o, f}), tensor_of(dy, {n, o}),
                          tensor_of(dw, {o, f}), tensor_of(db, {o}), ops::Tensor(),
                          GradMode::accumulate);  // no dx: the first layer
  for (double& v : want_dw) v *= 2;
  for (double& v : want_db) v *= 2;
  EXPECT_TRUE(all_near(doubles(dw), want_dw, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(db), want_db, 1e-6, 1e-6));
  EXPECT_THROW(backend.linear_forward(tensor_of(x, {n * f}), tensor_of(w, {o, f}),
                                      tensor_of(b, {o}), tensor_of(y, {n, o})),
               std::invalid_argument);
}

TEST(HostBackendDense, LayerNormForwardAndBackward) {
  HostBackend backend;
  constexpr std::size_t n = 3, f = 5;
  constexpr float eps = 1e-5f;
  std::vector<float> x = uniform_floats(n * f, 11, -2.0f, 3.0f), gamma = uniform_floats(f, 12);
  std::vector<float> beta = uniform_floats(f, 13), y(n * f), mean(n), rstd(n);
  std::vector<float> dy = uniform_floats(n * f, 14), dx(n * f), dgamma(f), dbeta(f);
  backend.layer_norm_forward(tensor_of(x, {n, f}), tensor_of(gamma, {f}), tensor_of(beta, {f}),
                             tensor_of(y, {n, f}), tensor_of(mean, {n}), tensor_of(rstd, {n}), eps);
  backend.layer_norm_backward(tensor_of(x, {n, f}), tensor_of(gamma, {f}), tensor_of(dy, {n, f}),
                              tensor_of(mean, {n}), tensor_of(rstd, {n}), tensor_of(dx, {n, f}),
                              tensor_of(dgamma, {f}), tensor_of(dbeta, {f}));
  std::vector<double> want_y(n * f), want_mean(n), want_rstd(n), want_dx(n * f);
  std::vector<double> want_dgamma(f), want_dbeta(f);
  for (std::size_t r = 0; r < n; ++r) {
    double mu = 0, var = 0, g_mean = 0, gx_mean = 0;
    for (std::size_t i = 0; i < f; ++i) mu += x[r * f + i] / double{f};
    for (std::size_t i = 0; i < f; ++i) var += std::pow(x[r * f + i] - mu, 2) / double{f};
    const double rs = 1 / std::sqrt(var + eps);
    want_mean[r] = mu;
    want_rstd[r] = rs;
    for (std::size_t i = 0; i < f; ++i) {
      const double xhat = (x[r * f + i] - mu) * rs, g = double{dy[r * f + i]} * gamma[i];
      want_y[r * f + i] = xhat * gamma[i] + beta[i];
      want_dgamma[i] += dy[r * f + i] * xhat;
      want_dbeta[i] += dy[r * f + i];
      g_mean += g / double{f};
      gx_mean += g * xhat / double{f};
    }
    for (std::size_t i = 0; i < f; ++i) {
      const double xhat = (x[r * f + i] - mu) * rs;
      want_dx[r * f + i] = rs * (double{dy[r * f + i]} * gamma[i] - g_mean - xhat * gx_mean);
    }
  }
  EXPECT_TRUE(all_near(doubles(y), want_y, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(doubles(mean), want_mean, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(rstd), want_rstd, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(doubles(dx), want_dx, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(doubles(dgamma), want_dgamma, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(doubles(dbeta), want_dbeta, 1e-5, 1e-5));
}

/// Token rows [B S, W] whose element (t, c) is 1000 t + c, so every move is identifiable.
std::vector<float> numbered_rows(std::size_t tokens, std::size_t width) {
  std::vector<float> rows(tokens * width);
  for (std::size_t t = 0; t < tokens; ++t)
    for (std::size_t c = 0; c < width; ++c) rows[t * width + c] = float(1000 * t + c);
  return rows;
}

TEST(HostBackendDense, HeadsFromRowsFollowsTheIndexFormula) {
  HostBackend backend;
  constexpr std::size_t b = 2, h = 3, s = 4, dh = 2, w = 3 * h * dh, col = h * dh;  // k of qkv
  std::vector<float> rows = numbered_rows(b * s, w), heads(b * h * s * dh);
  backend.heads_from_rows(tensor_of(rows, {b * s, w}), col, tensor_of(heads, {b, h, s, dh}));
  for (std::size_t bi = 0; bi < b; ++bi)
    for (std::size_t hi = 0; hi < h; ++hi)
      for (std::size_t si = 0; si < s; ++si)
        for (std::size_t d = 0; d < dh; ++d)
          EXPECT_EQ(heads[((bi * h + hi) * s + si) * dh + d],
                    rows[(bi * s + si) * w + col + hi * dh + d]);
}

TEST(HostBackendDense, RowsFromHeadsInvertsAndLeavesOtherColumns) {
  HostBackend backend;
  constexpr std::size_t b = 2, h = 2, s = 3, dh = 2, w = 7, col = 2;
  const std::vector<float> original = numbered_rows(b * s, w);
  std::vector<float> rows = original, heads(b * h * s * dh), cleared(b * s * w, -1.0f);
  backend.heads_from_rows(tensor_of(rows, {b * s, w}), col, tensor_of(heads, {b, h, s, dh}));
  backend.rows_from_heads(tensor_of(heads, {b, h, s, dh}), tensor_of(cleared, {b * s, w}), col);
  for (std::size_t t = 0; t < b * s; ++t)
    for (std::size_t c = 0; c < w; ++c) {
      const bool moved = c >= col && c < col + h * dh;
      EXPECT_EQ(cleared[t * w + c], moved ? original[t * w + c] : -1.0f) << t << "," << c;
    }
}

TEST(HostBackendDense, HeadLayoutRefusesRowsThatDoNotHoldTheHeads) {
  HostBackend backend;
  std::vector<float> rows(8 * 12), short_rows(7 * 12), heads(2 * 2 * 4 * 3);
  const ops::Tensor r = tensor_of(rows, {8, 12}), h = tensor_of(heads, {2, 2, 4, 3});
  EXPECT_NO_THROW(backend.heads_from_rows(r, 6, h));
  EXPECT_NO_THROW(backend.rows_from_heads(h, r, 6));
  for (const std::int64_t col : {std::int64_t{7}, std::int64_t{-1}}) {
    EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { backend.heads_from_rows(r, col, h); },
                                                     "heads_from_rows"));
    EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { backend.rows_from_heads(h, r, col); },
                                                     "rows_from_heads"));
  }
  const ops::Tensor seven = tensor_of(short_rows, {7, 12});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.heads_from_rows(seven, 0, h); },
      "heads_from_rows: columns [0, 6) of [7, 12] fp32 do not hold [2, 2, 4, 3] fp32"));
  EXPECT_THROW(backend.rows_from_heads(h, seven, 0), std::invalid_argument);
}

TEST(HostBackendDense, TokenEmbeddingForwardAndBackwardWithRepeatedTokens) {
  HostBackend backend;
  constexpr std::size_t v = 5, s = 3, hid = 4, t = 6;  // two sequences of three tokens
  std::vector<float> wte = uniform_floats(v * hid, 15), wpe = uniform_floats(s * hid, 16);
  std::vector<std::int32_t> tokens = {2, 4, 2, 2, 0, 4};
  std::vector<float> out(t * hid), dout = uniform_floats(t * hid, 17);
  backend.token_embedding_forward(tensor_of(wte, {v, hid}), tensor_of(wpe, {s, hid}),
                                  tensor_of(tokens, {t}), tensor_of(out, {t, hid}));
  std::vector<double> want_dwte(v * hid, 0.5), want_dwpe(s * hid, 0.25);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t c = 0; c < hid; ++c) {
      const auto id = static_cast<std::size_t>(tokens[i]);
      EXPECT_EQ(out[i * hid + c], wte[id * hid + c] + wpe[(i % s) * hid + c]);
      want_dwte[id * hid + c] += dout[i * hid + c];
      want_dwpe[(i % s) * hid + c] += dout[i * hid + c];
    }
  std::vector<float> dwte(v * hid, 0.5f), dwpe(s * hid, 0.25f);  // added to, not overwritten
  backend.token_embedding_backward(tensor_of(dout, {t, hid}), tensor_of(tokens, {t}),
                                   tensor_of(dwte, {v, hid}), tensor_of(dwpe, {s, hid}));
  EXPECT_TRUE(all_near(doubles(dwte), want_dwte, 1e-6));
  EXPECT_TRUE(all_near(doubles(dwpe), want_dwpe, 1e-6));
  std::vector<std::int64_t> wide(t);
  EXPECT_THROW(backend.token_embedding_forward(tensor_of(wte, {v, hid}), tensor_of(wpe, {s, hid}),
                                               tensor_of(wide, {t}), tensor_of(out, {t, hid})),
               std::invalid_argument);
}

TEST(HostBackendDense, TokenEmbeddingRefusesTablesOfAnotherWidthOrTokenCount) {
  HostBackend backend;
  std::vector<float> wte(5 * 4), wpe(3 * 4), narrow_wpe(3 * 3), out(6 * 4), short_out(5 * 4);
  std::vector<std::int32_t> tokens(6);
  const ops::Tensor te = tensor_of(wte, {5, 4}), pe = tensor_of(wpe, {3, 4});
  const ops::Tensor ids = tensor_of(tokens, {6}), o = tensor_of(out, {6, 4});
  EXPECT_NO_THROW(backend.token_embedding_forward(te, pe, ids, o));
  EXPECT_NO_THROW(backend.token_embedding_backward(o, ids, te, pe));
  const ops::Tensor bad_pe = tensor_of(narrow_wpe, {3, 3}), bad_out = tensor_of(short_out, {5, 4});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.token_embedding_forward(te, bad_pe, ids, o); }, "wpe [3, 3] fp32"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.token_embedding_forward(te, pe, ids, bad_out); }, "[5, 4] fp32"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.token_embedding_backward(o, ids, te, bad_pe); }, "token_embedding_backward"));
  EXPECT_THROW(backend.token_embedding_backward(bad_out, ids, te, pe), std::invalid_argument);
  EXPECT_THROW(backend.token_embedding_forward(tensor_of(wpe, {4, 3}), pe, ids, o),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels
