// The kernel-ridge residual of op models against its definition worked by hand (two points on
// one input: a 2x2 system), its fall to 0 far from the fitted points, and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "autotune/rbf_residual.hpp"

namespace scaletune::autotune {
namespace {

TEST(RbfResidual, TwoPointsSolveTheirTwoByTwoSystem) {
  // x = 1 and 3: mean 2, standard deviation 1, so z = -1 and +1; d = 1, gamma = 0.5:
  // k = exp(-0.5 * 4) between them. (K + 0.1 I) alpha = (0.2, -0.4) by Cramer's rule.
  const std::vector<std::vector<double>> x = {{1.0}, {3.0}};
  const std::vector<double> r = {0.2, -0.4};
  const RbfResidual fit = fit_rbf_residual(x, r, 0.5, 0.1);
  const double k = std::exp(-2.0), a = 1.1, det = a * a - k * k;
  const double alpha0 = (0.2 * a + 0.4 * k) / det, alpha1 = (-0.4 * a - 0.2 * k) / det;
  ASSERT_EQ(fit.alpha.size(), 2u);
  EXPECT_NEAR(fit.alpha[0], alpha0, 1e-12);
  EXPECT_NEAR(fit.alpha[1], alpha1, 1e-12);
  EXPECT_NEAR(fit.offset[0], 2.0, 1e-12);
  EXPECT_NEAR(fit.scale[0], 1.0, 1e-12);
  // At x = 2 (z = 0) each center is 1 away: r = (alpha0 + alpha1) exp(-0.5).
  const std::vector<double> mid = {2.0};
  EXPECT_NEAR(fit.value(mid), (alpha0 + alpha1) * std::exp(-0.5), 1e-12);
  // The ridge shrinks the fitted values towards 0 but keeps their sign and order.
  EXPECT_GT(fit.value(x[0]), 0.0);
  EXPECT_LT(fit.value(x[0]), 0.2);
  EXPECT_LT(fit.value(x[1]), 0.0);
}

TEST(RbfResidual, FarFromEveryPointItIsZero) {
  std::vector<std::vector<double>> x;
  std::vector<double> r;
  for (int i = 0; i < 10; ++i) {
    x.push_back({double(i), double(i % 3)});
    r.push_back(i % 2 ? 0.3 : -0.3);
  }
  const RbfResidual fit = fit_rbf_residual(x, r);
  const std::vector<double> far = {100.0, 50.0};
  EXPECT_NEAR(fit.value(far), 0.0, 1e-12);
  EXPECT_EQ(fit.offset.size(), 2u);
  EXPECT_EQ(fit.centers.size(), 2 * fit.alpha.size());
  EXPECT_EQ(RbfResidual{}.value(far), 0.0);  // an empty residual is 0 for any inputs
}

TEST(RbfResidual, ARepeatedInputHasScaleOne) {
  // The second input is the same everywhere: its scale is 1 (no division by 0) and it does
  // not move the distances.
  const RbfResidual fit = fit_rbf_residual({{1.0, 5.0}, {3.0, 5.0}}, std::vector<double>{1, -1});
  EXPECT_EQ(fit.scale[1], 1.0);
  const RbfResidual one = fit_rbf_residual({{1.0}, {3.0}}, std::vector<double>{1, -1}, 0.25);
  const std::vector<double> a = {1.5, 5.0}, b = {1.5};
  EXPECT_NEAR(fit.value(a), one.value(b), 1e-12);  // gamma / d: 0.5 / 2 = 0.25 / 1
}

TEST(RbfResidual, RefusesMismatchedSizes) {
  EXPECT_THROW(fit_rbf_residual({}, std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(fit_rbf_residual({{1.0}, {2.0}}, std::vector<double>{1.0}), std::invalid_argument);
  EXPECT_THROW(fit_rbf_residual({{1.0}, {2.0, 3.0}}, std::vector<double>{1.0, 2.0}),
               std::invalid_argument);
  const RbfResidual fit = fit_rbf_residual({{1.0}, {3.0}}, std::vector<double>{1, -1});
  const std::vector<double> two = {1.0, 2.0};
  EXPECT_THROW(static_cast<void>(fit.value(two)), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::autotune
