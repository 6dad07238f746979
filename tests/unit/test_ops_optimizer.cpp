// SGD with momentum and weight decay against PyTorch's update rule worked by hand and a naive
// loop.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/host/optimizer.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

TEST(OpsOptimizer, TwoStepsMatchHandComputedSequence) {
  // lr 0.1, momentum 0.9, weight decay 0.1; p0 = 1, v0 = 0.
  // Step 1, grad 0.5:  g = 0.5 + 0.1*1 = 0.6;        v = 0.6;               p = 1 - 0.06 = 0.94.
  // Step 2, grad -0.2: g = -0.2 + 0.1*0.94 = -0.106; v = 0.54 - 0.106 = 0.434; p = 0.94 - 0.0434
  //                                                                            = 0.8966.
  const SgdOptions opt{0.1f, 0.9f, 0.1f};
  const Vector params("params", 1), grads("grads", 1), velocity("velocity", 1);
  params(0) = 1.0f;
  grads(0) = 0.5f;
  sgd_momentum_step(params, grads, velocity, opt);
  EXPECT_NEAR(velocity(0), 0.6, 1e-6);
  EXPECT_NEAR(params(0), 0.94, 1e-6);
  grads(0) = -0.2f;
  sgd_momentum_step(params, grads, velocity, opt);
  EXPECT_NEAR(velocity(0), 0.434, 1e-6);
  EXPECT_NEAR(params(0), 0.8966, 1e-6);
}

TEST(OpsOptimizer, StepMatchesNaiveLoopOverManyElements) {
  constexpr std::size_t kCount = 1000;
  const SgdOptions opt;  // defaults: lr 0.1, momentum 0.9, weight decay 5e-5
  const Vector params("params", kCount), grads("grads", kCount), velocity("velocity", kCount);
  fill_uniform(params, 1, -1.0f, 1.0f);
  fill_uniform(grads, 2, -1.0f, 1.0f);
  fill_uniform(velocity, 3, -1.0f, 1.0f);
  std::vector<double> p = to_doubles(params), v = to_doubles(velocity);
  for (std::size_t i = 0; i < kCount; ++i) {
    const double g = grads(i) + double{opt.weight_decay} * p[i];
    v[i] = opt.momentum * v[i] + g;
    p[i] -= opt.lr * v[i];
  }
  sgd_momentum_step(params, grads, velocity, opt);
  EXPECT_TRUE(all_near(to_doubles(velocity), v, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(params), p, 1e-6, 1e-6));
}

TEST(OpsOptimizer, RejectsMismatchedLengths) {
  const Vector params("params", 4), grads("grads", 3), velocity("velocity", 4);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { sgd_momentum_step(params, grads, velocity, SgdOptions{}); },
      "sgd_momentum_step: grads is [3], expected [4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { sgd_momentum_step(params, velocity, grads, SgdOptions{}); },
      "velocity is [3], expected [4]"));
}

}  // namespace
}  // namespace scaletune::kernels
