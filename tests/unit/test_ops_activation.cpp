// ReLU forward/backward and the residual add against naive element-wise loops.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/host/activation.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

std::vector<double> naive_relu(const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] > 0 ? x[i] : 0.0;
  return y;
}

TEST(OpsActivation, ReluForwardZeroesNegativesOutOfPlaceAndInPlace) {
  const Tensor4 x("x", 2, 3, 4, 5);
  fill_uniform(x, 1, -1.0f, 1.0f);
  x(0, 0, 0, 0) = 0.0f;
  const std::vector<double> want = naive_relu(to_doubles(x));
  const Tensor4 y("y", 2, 3, 4, 5);
  relu_forward(x, y);
  EXPECT_TRUE(all_near(to_doubles(y), want, 0.0));
  relu_forward(x, x);
  EXPECT_TRUE(all_near(to_doubles(x), want, 0.0));
}

TEST(OpsActivation, ReluBackwardMasksWithOutputAndMayWorkInPlace) {
  const Tensor4 x("x", 3, 2, 3, 4), y("y", 3, 2, 3, 4), dy("dy", 3, 2, 3, 4), dx("dx", 3, 2, 3, 4);
  fill_uniform(x, 2, -1.0f, 1.0f);
  fill_uniform(dy, 3, -2.0f, 2.0f);
  relu_forward(x, y);
  std::vector<double> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = x.data()[i] > 0.0f ? double{dy.data()[i]} : 0.0;
  relu_backward(y, dy, dx);
  EXPECT_TRUE(all_near(to_doubles(dx), want, 0.0));
  relu_backward(y, dy, dy);
  EXPECT_TRUE(all_near(to_doubles(dy), want, 0.0));
}

TEST(OpsActivation, AddInplaceAddsResidual) {
  const Tensor4 y("y", 2, 4, 3, 3), x("x", 2, 4, 3, 3);
  fill_uniform(y, 4, -1.0f, 1.0f);
  fill_uniform(x, 5, -1.0f, 1.0f);
  std::vector<double> want(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) want[i] = double{y.data()[i]} + x.data()[i];
  add_inplace(y, x);
  EXPECT_TRUE(all_near(to_doubles(y), want, 1e-7, 1e-7));
}

TEST(OpsActivation, RejectsMismatchedShapes) {
  const Tensor4 x("x", 2, 3, 4, 5), y("y", 2, 3, 4, 4);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { relu_forward(x, y); }, "y is [2, 3, 4, 4], expected [2, 3, 4, 5]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { relu_backward(x, x, y); },
                                                         "dx is [2, 3, 4, 4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([&] { add_inplace(x, y); },
                                                         "add_inplace: x is [2, 3, 4, 4]"));
}

}  // namespace
}  // namespace scaletune::kernels
