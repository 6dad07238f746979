// Layer norm forward and backward against a naive double loop, a naive full-Jacobian backward
// and central finite differences of the kernel's own forward.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/host/layer_norm.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

constexpr double kEps = 1e-5;

/// Row statistics and output of the published formula (Ba et al. 2016), all in double.
struct NaiveNorm {
  std::vector<double> mean, rstd, xhat, y;
};

NaiveNorm naive_forward(const Tensor2& x, const Vector& gamma, const Vector& beta) {
  const std::size_t rows = x.extent(0), features = x.extent(1);
  NaiveNorm out{std::vector<double>(rows), std::vector<double>(rows), std::vector<double>(x.size()),
                std::vector<double>(x.size())};
  for (std::size_t n = 0; n < rows; ++n) {
    double sum = 0.0;
    for (std::size_t f = 0; f < features; ++f) sum += x(n, f);
    out.mean[n] = sum / static_cast<double>(features);
    double var = 0.0;
    for (std::size_t f = 0; f < features; ++f) var += std::pow(x(n, f) - out.mean[n], 2);
    out.rstd[n] = 1.0 / std::sqrt(var / static_cast<double>(features) + kEps);
    for (std::size_t f = 0; f < features; ++f) {
      const std::size_t i = n * features + f;
      out.xhat[i] = (x(n, f) - out.mean[n]) * out.rstd[n];
      out.y[i] = out.xhat[i] * gamma(f) + beta(f);
    }
  }
  return out;
}

struct NaiveGrads {
  std::vector<double> dx, dgamma, dbeta;
};

/// dx_i = sum_j dy_j gamma_j rstd (delta_ij - 1/F - xhat_i xhat_j / F): the full Jacobian of
/// xhat, written out element by element (no shared-sum shortcut).
/// `fwd` is naive_forward of the same x.
NaiveGrads naive_backward(const NaiveNorm& fwd, const Vector& gamma, const Tensor2& dy) {
  const std::size_t rows = dy.extent(0), features = dy.extent(1);
  const double inv_f = 1.0 / static_cast<double>(features);
  NaiveGrads g{std::vector<double>(dy.size(), 0.0), std::vector<double>(features, 0.0),
               std::vector<double>(features, 0.0)};
  for (std::size_t n = 0; n < rows; ++n)
    for (std::size_t i = 0; i < features; ++i) {
      const double xhat_i = fwd.xhat[n * features + i];
      g.dgamma[i] += dy(n, i) * xhat_i;
      g.dbeta[i] += dy(n, i);
      for (std::size_t j = 0; j < features; ++j) {
        const double jac = fwd.rstd[n] * ((i == j ? 1.0 : 0.0) - inv_f -
                                          xhat_i * fwd.xhat[n * features + j] * inv_f);
        g.dx[n * features + i] += double{dy(n, j)} * gamma(j) * jac;
      }
    }
  return g;
}

/// A layer of N rows and F features with random x, gamma, beta, dy and every output buffer.
struct Case {
  Tensor2 x, y, dy, dx;
  Vector gamma, beta, mean, rstd, dgamma, dbeta;
  Case(std::size_t rows, std::size_t features, unsigned seed)
      : x("x", rows, features),
        y("y", rows, features),
        dy("dy", rows, features),
        dx("dx", rows, features),
        gamma("gamma", features),
        beta("beta", features),
        mean("mean", rows),
        rstd("rstd", rows),
        dgamma("dgamma", features),
        dbeta("dbeta", features) {
    fill_uniform(x, seed, -2.0f, 2.0f);
    fill_uniform(gamma, seed + 1, 0.5f, 1.5f);
    fill_uniform(beta, seed + 2, -0.5f, 0.5f);
    fill_uniform(dy, seed + 3, -1.0f, 1.0f);
  }
  void forward() { layer_norm_forward(x, gamma, beta, y, mean, rstd); }
  void backward() { layer_norm_backward(x, gamma, dy, mean, rstd, dx, dgamma, dbeta); }
  /// sum dy * y after a fresh forward, in double: the scalar whose gradients backward gives.
  double loss() {
    forward();
    double sum = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += double{dy.data()[i]} * y.data()[i];
    return sum;
  }
};

/// Central difference of c.loss() in element `i` of the contiguous view `v`, using the step
/// actually representable in float.
template <class ViewType>
double central_difference(Case& c, const ViewType& v, std::size_t i, float h) {
  const float saved = v.data()[i];
  v.data()[i] = saved + h;
  const float up = v.data()[i];
  const double loss_up = c.loss();
  v.data()[i] = saved - h;
  const float down = v.data()[i];
  const double loss_down = c.loss();
  v.data()[i] = saved;
  return (loss_up - loss_down) / (double{up} - double{down});
}

template <class ViewType>
std::vector<double> numeric_gradient(Case& c, const ViewType& v, float h) {
  std::vector<double> grad(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) grad[i] = central_difference(c, v, i, h);
  return grad;
}

TEST(LayerNorm, ForwardMatchesNaiveLoopAndSavesRowStatistics) {
  Case c(5, 37, 11);
  c.forward();
  const NaiveNorm want = naive_forward(c.x, c.gamma, c.beta);
  EXPECT_TRUE(all_near(to_doubles(c.y), want.y, 2e-6, 2e-6));
  EXPECT_TRUE(all_near(to_doubles(c.mean), want.mean, 1e-7, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(c.rstd), want.rstd, 0.0, 1e-6));
}

TEST(LayerNorm, ForwardInPlaceMatchesOutOfPlace) {
  Case c(4, 16, 21);
  c.forward();
  const std::vector<double> want = to_doubles(c.y);
  layer_norm_forward(c.x, c.gamma, c.beta, c.x, c.mean, c.rstd);
  EXPECT_TRUE(all_near(to_doubles(c.x), want, 0.0));
}

TEST(LayerNorm, StatisticsStayAccurateForRowsFarFromZero) {
  // Mean 1e4, spread 1: a float E[x^2] - E[x]^2 would lose every digit of the variance.
  Case c(3, 64, 31);
  for (std::size_t i = 0; i < c.x.size(); ++i) c.x.data()[i] += 1.0e4f;
  c.forward();
  const NaiveNorm want = naive_forward(c.x, c.gamma, c.beta);
  EXPECT_TRUE(all_near(to_doubles(c.y), want.y, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(c.rstd), want.rstd, 0.0, 1e-5));
}

TEST(LayerNorm, ConstantRowGivesBetaAndFiniteGradients) {
  Case c(2, 8, 41);
  for (std::size_t f = 0; f < 8; ++f) c.x(1, f) = 3.25f;
  c.forward();
  EXPECT_FLOAT_EQ(c.mean(1), 3.25f);
  EXPECT_NEAR(c.rstd(1), 1.0 / std::sqrt(kEps), 1e-6 / std::sqrt(kEps));
  for (std::size_t f = 0; f < 8; ++f) EXPECT_FLOAT_EQ(c.y(1, f), c.beta(f)) << "feature " << f;
  c.backward();
  const NaiveGrads want = naive_backward(naive_forward(c.x, c.gamma, c.beta), c.gamma, c.dy);
  // On the constant row dx = rstd (g - mean g) with rstd = 1/sqrt(eps) ~ 316.
  EXPECT_TRUE(all_near(to_doubles(c.dx), want.dx, 1e-4, 1e-5));
}

TEST(LayerNorm, BackwardMatchesNaiveJacobian) {
  Case c(6, 23, 51);
  c.forward();
  c.backward();
  const NaiveGrads want = naive_backward(naive_forward(c.x, c.gamma, c.beta), c.gamma, c.dy);
  EXPECT_TRUE(all_near(to_doubles(c.dx), want.dx, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(c.dgamma), want.dgamma, 1e-5, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(c.dbeta), want.dbeta, 1e-6, 1e-6));
}

TEST(LayerNorm, BackwardMatchesCentralDifferences) {
  Case c(3, 8, 61);
  c.forward();
  c.backward();
  const std::vector<double> dx = to_doubles(c.dx);
  const std::vector<double> dgamma = to_doubles(c.dgamma);
  const std::vector<double> dbeta = to_doubles(c.dbeta);
  // Float forward, h = 1e-2: rounding noise ~1e-4 and truncation O(h^2) ~1e-4.
  EXPECT_TRUE(all_near(dx, numeric_gradient(c, c.x, 1e-2f), 2e-3, 1e-2));
  EXPECT_TRUE(all_near(dgamma, numeric_gradient(c, c.gamma, 1e-2f), 2e-3, 1e-2));
  EXPECT_TRUE(all_near(dbeta, numeric_gradient(c, c.beta, 1e-2f), 2e-3, 1e-2));
}

TEST(LayerNorm, BackwardMayOverwriteDy) {
  Case c(4, 12, 71);
  c.forward();
  c.backward();
  const std::vector<double> want_dx = to_doubles(c.dx);
  const std::vector<double> want_dgamma = to_doubles(c.dgamma);
  layer_norm_backward(c.x, c.gamma, c.dy, c.mean, c.rstd, c.dy, c.dgamma, c.dbeta);
  EXPECT_TRUE(all_near(to_doubles(c.dy), want_dx, 0.0));
  EXPECT_TRUE(all_near(to_doubles(c.dgamma), want_dgamma, 0.0));
}

TEST(LayerNorm, RejectsWrongShapesAndEps) {
  Case c(4, 6, 81);
  const Vector gamma5("gamma5", 5), mean3("mean3", 3);
  const Tensor2 y46("y", 4, 5), empty("empty", 4, 0);
  using test::throws_naming;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_forward(c.x, gamma5, c.beta, c.y, c.mean, c.rstd); },
      "layer_norm_forward: gamma is [5], expected [6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_forward(c.x, c.gamma, c.beta, y46, c.mean, c.rstd); },
      "y is [4, 5], expected [4, 6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_forward(c.x, c.gamma, c.beta, c.y, c.mean, mean3); },
      "rstd is [3], expected [4]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_forward(c.x, c.gamma, c.beta, c.y, c.mean, c.rstd, 0.0f); },
      "eps is 0.000000, expected > 0"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_forward(empty, c.gamma, c.beta, c.y, c.mean, c.rstd); },
      "x is [4, 0], expected at least one feature"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_backward(c.x, c.gamma, y46, c.mean, c.rstd, c.dx, c.dgamma, c.dbeta); },
      "layer_norm_backward: dy is [4, 5], expected [4, 6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_backward(c.x, c.gamma, c.dy, c.mean, c.rstd, c.dx, gamma5, c.dbeta); },
      "dgamma is [5], expected [6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { layer_norm_backward(c.x, c.gamma, c.dy, c.mean, c.rstd, c.x, c.dgamma, c.dbeta); },
      "dx must not alias x"));
}

}  // namespace
}  // namespace scaletune::kernels
