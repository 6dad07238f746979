// Adam against a naive double-precision loop of torch.optim.Adam's update (Kingma & Ba 2015,
// algorithm 1, with torch's L2 weight decay added to the gradient) over three steps.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "kernels/host/adam.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

/// Adam's state, in double.
struct NaiveAdam {
  std::vector<double> params, m, v;
};

void naive_adam_step(NaiveAdam& s, const std::vector<double>& grads, int step,
                     const AdamOptions& opt) {
  const double b1 = opt.beta1, b2 = opt.beta2;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const double g = grads[i] + double{opt.weight_decay} * s.params[i];
    s.m[i] = b1 * s.m[i] + (1.0 - b1) * g;
    s.v[i] = b2 * s.v[i] + (1.0 - b2) * g * g;
    const double m_hat = s.m[i] / (1.0 - std::pow(b1, step));
    const double v_hat = s.v[i] / (1.0 - std::pow(b2, step));
    s.params[i] -= double{opt.lr} * m_hat / (std::sqrt(v_hat) + double{opt.eps});
  }
}

void expect_three_steps_match(const AdamOptions& opt) {
  constexpr std::size_t kCount = 1000;
  const Vector params("params", kCount), grads("grads", kCount);
  const Vector m("m", kCount), v("v", kCount);
  fill_uniform(params, 1, -1.0f, 1.0f);
  NaiveAdam naive{to_doubles(params), std::vector<double>(kCount), std::vector<double>(kCount)};
  for (int step = 1; step <= 3; ++step) {
    fill_uniform(grads, 10u + static_cast<unsigned>(step), -1.0f, 1.0f);
    adam_step(params, grads, m, v, step, opt);
    naive_adam_step(naive, to_doubles(grads), step, opt);
  }
  // Each step moves a parameter by at most about lr (|m_hat / sqrt(v_hat)| <= 1 here); float
  // rounding of the update is a few ulp of lr, of the parameter a few ulp of 1 per step.
  EXPECT_TRUE(all_near(to_doubles(params), naive.params, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(m), naive.m, 1e-6, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(v), naive.v, 1e-8, 1e-5));
}

TEST(Adam, ThreeStepsMatchNaiveLoopWithDefaults) {
  expect_three_steps_match(AdamOptions{});
}

TEST(Adam, ThreeStepsMatchNaiveLoopWithWeightDecay) {
  expect_three_steps_match(AdamOptions{0.01f, 0.8f, 0.99f, 1e-6f, 0.1f});
}

TEST(Adam, FirstStepMovesEachParameterByLrAgainstTheGradientSign) {
  // Step 1 without decay: m_hat = g, v_hat = g^2, so the update is lr * g / (|g| + eps).
  const Vector params("params", 2), grads("grads", 2), m("m", 2), v("v", 2);
  params(0) = 1.0f;
  params(1) = -2.0f;
  grads(0) = 0.5f;
  grads(1) = -3.0f;
  adam_step(params, grads, m, v, 1, AdamOptions{0.1f, 0.9f, 0.999f, 0.0f, 0.0f});
  EXPECT_NEAR(params(0), 0.9, 1e-6);
  EXPECT_NEAR(params(1), -1.9, 1e-6);
}

TEST(Adam, RejectsMismatchedLengthsStepZeroAndBadOptions) {
  const Vector params("params", 4), grads("grads", 3), state("state", 4), other("other", 4);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { adam_step(params, grads, state, other, 1, AdamOptions{}); },
      "adam_step: grads is [3], expected [4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { adam_step(params, state, other, grads, 1, AdamOptions{}); }, "v is [3], expected [4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { adam_step(params, state, other, other, 0, AdamOptions{}); },
      "step is 0, expected >= 1"));
  AdamOptions bad;
  bad.beta2 = 1.0f;
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { adam_step(params, state, other, other, 1, bad); },
      "beta2 is 1.000000, expected in [0, 1)"));
  bad = AdamOptions{};
  bad.lr = -1.0f;
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { adam_step(params, state, other, other, 1, bad); }, "lr is -1.000000, expected >= 0"));
}

}  // namespace
}  // namespace scaletune::kernels
