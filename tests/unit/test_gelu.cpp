// GELU (tanh form) forward and backward against the published formula evaluated in double,
// its derivative, central differences, the exact erf form and saturation at large |x|.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/host/gelu.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

const double kSqrt2OverPi = std::sqrt(2.0 / std::acos(-1.0));

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016).
double naive_gelu(double x) {
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * std::pow(x, 3))));
}

/// d/dx of naive_gelu written with sech^2 u = 1 / cosh^2 u.
double naive_gelu_slope(double x) {
  const double u = kSqrt2OverPi * (x + 0.044715 * std::pow(x, 3));
  const double sech_sq = 1.0 / std::pow(std::cosh(u), 2);
  return 0.5 * (1.0 + std::tanh(u)) +
         0.5 * x * sech_sq * kSqrt2OverPi * (1.0 + 3.0 * 0.044715 * x * x);
}

/// Applies `fn` to every element of the contiguous view `t`.
template <class Fn>
std::vector<double> map_doubles(const Tensor2& t, const Fn& fn) {
  std::vector<double> out = to_doubles(t);
  for (double& v : out) v = fn(v);
  return out;
}

TEST(Gelu, ForwardMatchesTanhFormula) {
  const Tensor2 x("x", 7, 33), y("y", 7, 33);
  fill_uniform(x, 1, -6.0f, 6.0f);
  gelu_forward(x, y);
  EXPECT_TRUE(all_near(to_doubles(y), map_doubles(x, naive_gelu), 1e-7, 1e-7));
}

TEST(Gelu, ForwardStaysWithinApproximationErrorOfExactGelu) {
  // x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)); the tanh form deviates from it by under 5e-4.
  const Tensor2 x("x", 1, 801), y("y", 1, 801);
  for (std::size_t i = 0; i < x.size(); ++i) x(0, i) = -8.0f + 0.02f * static_cast<float>(i);
  gelu_forward(x, y);
  const auto exact = [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); };
  EXPECT_TRUE(all_near(to_doubles(y), map_doubles(x, exact), 5e-4));
  EXPECT_FALSE(all_near(to_doubles(y), map_doubles(x, exact), 1e-4));  // it is the tanh form
}

TEST(Gelu, BackwardMatchesAnalyticSlope) {
  const Tensor2 x("x", 5, 41), dy("dy", 5, 41), dx("dx", 5, 41);
  fill_uniform(x, 2, -6.0f, 6.0f);
  fill_uniform(dy, 3, -1.0f, 1.0f);
  gelu_backward(x, dy, dx);
  std::vector<double> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = double{dy.data()[i]} * naive_gelu_slope(x.data()[i]);
  EXPECT_TRUE(all_near(to_doubles(dx), want, 1e-7, 1e-6));
}

TEST(Gelu, BackwardMatchesCentralDifferencesOfTheFormula) {
  const Tensor2 x("x", 3, 50), dy("dy", 3, 50), dx("dx", 3, 50);
  fill_uniform(x, 4, -5.0f, 5.0f);
  for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = 1.0f;
  gelu_backward(x, dy, dx);
  constexpr double h = 1e-5;  // truncation ~h^2, rounding ~1e-16/h: both far below 1e-6
  const auto numeric = [](double v) { return (naive_gelu(v + h) - naive_gelu(v - h)) / (2 * h); };
  EXPECT_TRUE(all_near(to_doubles(dx), map_doubles(x, numeric), 1e-6, 1e-6));
}

TEST(Gelu, SaturatesWithoutOverflowAtLargeMagnitudes) {
  // x^3 overflows float from |x| ~ 7e12; the tanh saturates from |x| ~ 6.
  const std::vector<float> values{8.0f, 30.0f, 1.0e4f, 1.0e19f, 3.0e38f};
  const Tensor2 x("x", 2, values.size()), y("y", 2, values.size());
  const Tensor2 dy("dy", 2, values.size()), dx("dx", 2, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    x(0, i) = values[i];
    x(1, i) = -values[i];
    dy(0, i) = 0.5f;
    dy(1, i) = 0.5f;
  }
  gelu_forward(x, y);
  gelu_backward(x, dy, dx);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(y(0, i), values[i]) << "x = " << values[i];
    EXPECT_EQ(y(1, i), 0.0f) << "x = " << -values[i];
    EXPECT_EQ(dx(0, i), 0.5f) << "x = " << values[i];
    EXPECT_EQ(dx(1, i), 0.0f) << "x = " << -values[i];
  }
}

TEST(Gelu, ForwardAndBackwardMayWorkInPlace) {
  const Tensor2 x("x", 4, 9), y("y", 4, 9), dy("dy", 4, 9), dx("dx", 4, 9);
  fill_uniform(x, 5, -3.0f, 3.0f);
  fill_uniform(dy, 6, -1.0f, 1.0f);
  gelu_forward(x, y);
  gelu_backward(x, dy, dx);
  gelu_backward(x, dy, dy);
  EXPECT_TRUE(all_near(to_doubles(dy), to_doubles(dx), 0.0));
  gelu_forward(x, x);
  EXPECT_TRUE(all_near(to_doubles(x), to_doubles(y), 0.0));
}

TEST(Gelu, RejectsMismatchedShapes) {
  const Tensor2 x("x", 4, 6), wrong("wrong", 4, 5);
  using test::throws_naming;
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { gelu_forward(x, wrong); },
                                                   "gelu_forward: y is [4, 5], expected [4, 6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { gelu_backward(x, wrong, x); },
                                                   "gelu_backward: dy is [4, 5], expected [4, 6]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { gelu_backward(x, x, wrong); },
                                                   "dx is [4, 5], expected [4, 6]"));
}

}  // namespace
}  // namespace scaletune::kernels
