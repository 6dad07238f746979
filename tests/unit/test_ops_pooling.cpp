// Max pooling (3x3, stride 2, pad 1 as in ResNet's stem) and global average pooling against
// naive loops.

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "kernels/host/pooling.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

/// Naive max pooling: out-of-bounds positions are skipped (-inf padding); the first maximum
/// in row-major window order wins. Returns y and dx = scatter of dy at the winners.
struct NaiveMaxPool {
  std::vector<double> y, dx;
};

NaiveMaxPool naive_max_pool(const Tensor4& x, const Tensor4& dy, int k, int s, int p) {
  const int n = static_cast<int>(x.extent(0)), c = static_cast<int>(x.extent(1));
  const int h = static_cast<int>(x.extent(2)), w = static_cast<int>(x.extent(3));
  const int oh_n = static_cast<int>(dy.extent(2)), ow_n = static_cast<int>(dy.extent(3));
  NaiveMaxPool r{std::vector<double>(dy.size()), std::vector<double>(x.size(), 0.0)};
  for (int b = 0; b < n; ++b)
    for (int ch = 0; ch < c; ++ch)
      for (int oh = 0; oh < oh_n; ++oh)
        for (int ow = 0; ow < ow_n; ++ow) {
          int best_h = -1, best_w = -1;
          for (int i = oh * s - p; i < oh * s - p + k; ++i)
            for (int j = ow * s - p; j < ow * s - p + k; ++j) {
              if (i < 0 || i >= h || j < 0 || j >= w) continue;
              if (best_h < 0 || x(b, ch, i, j) > x(b, ch, best_h, best_w)) {
                best_h = i;
                best_w = j;
              }
            }
          r.y[((b * c + ch) * oh_n + oh) * ow_n + ow] = x(b, ch, best_h, best_w);
          r.dx[((b * c + ch) * h + best_h) * w + best_w] += dy(b, ch, oh, ow);
        }
  return r;
}

void check_max_pool(const Tensor4& x, unsigned seed) {
  const int ho = MaxPool2d::out_size(static_cast<int>(x.extent(2)), 3, 2, 1);
  const int wo = MaxPool2d::out_size(static_cast<int>(x.extent(3)), 3, 2, 1);
  const Tensor4 y("y", x.extent(0), x.extent(1), ho, wo),
      dy("dy", x.extent(0), x.extent(1), ho, wo);
  const Tensor4 dx("dx", x.extent(0), x.extent(1), x.extent(2), x.extent(3));
  fill_uniform(dy, seed, -1.0f, 1.0f);
  Kokkos::deep_copy(dx, 7.0f);  // stale values must be overwritten
  MaxPool2d pool(3, 2, 1);
  pool.forward(x, y);
  pool.backward(dy, dx);
  const NaiveMaxPool want = naive_max_pool(x, dy, 3, 2, 1);
  EXPECT_TRUE(all_near(to_doubles(y), want.y, 0.0));
  EXPECT_TRUE(all_near(to_doubles(dx), want.dx, 1e-6));
}

TEST(OpsPooling, OutSizeFollowsFloorFormula) {
  EXPECT_EQ(MaxPool2d::out_size(112, 3, 2, 1), 56);  // ResNet stem: 112x112 -> 56x56
  EXPECT_EQ(MaxPool2d::out_size(7, 3, 2, 1), 4);
  EXPECT_EQ(MaxPool2d::out_size(8, 3, 2, 1), 4);
  EXPECT_EQ(MaxPool2d::out_size(5, 2, 2, 0), 2);
  EXPECT_THROW(MaxPool2d::out_size(1, 3, 1, 0), std::invalid_argument);
  EXPECT_THROW(MaxPool2d(3, 2, 2), std::invalid_argument);
  EXPECT_THROW(MaxPool2d(3, 0, 1), std::invalid_argument);
}

TEST(OpsPooling, MaxPoolForwardBackwardMatchNaive) {
  const Tensor4 x("x", 2, 3, 7, 8);
  fill_uniform(x, 1, -1.0f, 1.0f);
  check_max_pool(x, 2);
}

TEST(OpsPooling, MaxPoolPadsWithMinusInfinityNotZero) {
  const Tensor4 x("x", 1, 2, 5, 6);
  fill_uniform(x, 3, -2.0f, -1.0f);
  check_max_pool(x, 4);
  const Tensor4 y("y", 1, 2, 3, 3);
  MaxPool2d(3, 2, 1).forward(x, y);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_LT(y.data()[i], -0.5f) << i;
}

TEST(OpsPooling, MaxPoolTiesGoToFirstMaximumInWindow) {
  const Tensor4 x("x", 2, 2, 6, 7);
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> level(0, 2);  // many equal values per window
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(level(gen));
  check_max_pool(x, 6);

  // A constant 2x2 input, window 2, stride 1: the whole gradient lands on (0,0).
  const Tensor4 flat("flat", 1, 1, 2, 2), y("y", 1, 1, 1, 1), dy("dy", 1, 1, 1, 1),
      dx("dx", 1, 1, 2, 2);
  Kokkos::deep_copy(flat, 5.0f);
  Kokkos::deep_copy(dy, 3.0f);
  MaxPool2d pool(2, 1, 0);
  pool.forward(flat, y);
  pool.backward(dy, dx);
  EXPECT_TRUE(all_near(to_doubles(dx), std::vector<double>{3, 0, 0, 0}, 0.0));
}

TEST(OpsPooling, MaxPoolRejectsWrongShapesAndBackwardBeforeForward) {
  MaxPool2d pool(3, 2, 1);
  const Tensor4 x("x", 2, 3, 7, 8), dx("dx", 2, 3, 7, 8);
  EXPECT_TRUE(test::throws_naming<std::logic_error>(
      [&] { pool.backward(Tensor4("dy", 2, 3, 4, 4), dx); }, "forward has not run"));
  EXPECT_TRUE(
      test::throws_naming<std::invalid_argument>([&] { pool.forward(x, Tensor4("y", 2, 3, 4, 5)); },
                                                 "y is [2, 3, 4, 5], expected [2, 3, 4, 4]"));
  pool.forward(x, Tensor4("y", 2, 3, 4, 4));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { pool.backward(Tensor4("dy", 2, 3, 4, 4), Tensor4("dx", 2, 3, 8, 8)); },
      "dx is [2, 3, 8, 8], expected [2, 3, 7, 8]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { MaxPool2d(5, 1, 0).forward(Tensor4("x", 1, 1, 4, 9), Tensor4("y", 1, 1, 1, 5)); },
      "x is [1, 1, 4, 9], expected H and W >= kernel - 2*pad = 5"));
}

TEST(OpsPooling, GlobalAveragePoolForwardBackwardMatchNaive) {
  const Tensor4 x("x", 3, 4, 5, 6), dx("dx", 3, 4, 5, 6);
  const Tensor2 y("y", 3, 4), dy("dy", 3, 4);
  fill_uniform(x, 7, -1.0f, 2.0f);
  fill_uniform(dy, 8, -1.0f, 1.0f);
  std::vector<double> want_y(12, 0.0), want_dx(x.size());
  for (std::size_t n = 0; n < 3; ++n)
    for (std::size_t c = 0; c < 4; ++c)
      for (std::size_t h = 0; h < 5; ++h)
        for (std::size_t w = 0; w < 6; ++w) {
          want_y[n * 4 + c] += x(n, c, h, w) / 30.0;
          want_dx[((n * 4 + c) * 5 + h) * 6 + w] = dy(n, c) / 30.0;
        }
  global_avg_pool_forward(x, y);
  global_avg_pool_backward(dy, dx);
  EXPECT_TRUE(all_near(to_doubles(y), want_y, 1e-7, 1e-6));
  EXPECT_TRUE(all_near(to_doubles(dx), want_dx, 1e-9, 1e-6));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { global_avg_pool_forward(x, Tensor2("y", 3, 5)); }, "y is [3, 5], expected [3, 4]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { global_avg_pool_backward(Tensor2("dy", 2, 4), dx); }, "dy is [2, 4], expected [3, 4]"));
}

}  // namespace
}  // namespace scaletune::kernels
