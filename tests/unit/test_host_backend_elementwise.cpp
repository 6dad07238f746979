// HostBackend's element-wise ops on op tensors against naive loops written here: fill for each
// element type, converting copies, add, scale, column-block copies, ReLU, GELU, dropout and the
// non-finite check.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "kernels/host/dropout.hpp"
#include "kernels/host/host_backend.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using ops::DType;
using test::all_near;
using test::converted;
using test::doubles;
using test::tensor_of;
using test::throws_naming;
using test::uniform_floats;

template <class T>
void expect_filled(float value, T want) {
  HostBackend backend;
  std::vector<T> v(6);
  backend.fill(tensor_of(v, {2, 3}), value);
  for (const T& x : v) EXPECT_EQ(std::memcmp(&x, &want, sizeof(T)), 0);
}

TEST(HostBackendElementwise, FillWritesTheValueInEachType) {
  expect_filled<float>(1.5f, 1.5f);
  expect_filled<double>(0.1f, double{0.1f});
  expect_filled<Eigen::half>(0.1f, Eigen::half(0.1f));
  expect_filled<Eigen::bfloat16>(0.1f, Eigen::bfloat16(0.1f));
  expect_filled<std::int32_t>(7.9f, 7);  // truncated, as the doc says
  expect_filled<std::int64_t>(-3.7f, -3);
}

template <class T>
void expect_copy_through(const std::vector<float>& src) {
  HostBackend backend;
  std::vector<float> in = src;
  std::vector<T> mid(src.size());
  std::vector<float> out(src.size());
  const auto n = static_cast<std::int64_t>(src.size());
  backend.copy(tensor_of(in, {n}), tensor_of(mid, {n}));
  const std::vector<T> want = converted<T>(src);
  EXPECT_EQ(std::memcmp(mid.data(), want.data(), src.size() * sizeof(T)), 0);
  backend.copy(tensor_of(mid, {n}), tensor_of(out, {n}));
  for (std::size_t i = 0; i < src.size(); ++i) EXPECT_EQ(out[i], static_cast<float>(want[i]));
}

TEST(HostBackendElementwise, CopyConvertsBetweenFloatTypes) {
  const std::vector<float> src = uniform_floats(40, 11, -100.0f, 100.0f);
  expect_copy_through<Eigen::half>(src);
  expect_copy_through<Eigen::bfloat16>(src);
  expect_copy_through<double>(src);
  HostBackend backend;
  std::vector<double> wide = {0.1, -1.0 / 3.0, 1e300};
  std::vector<float> narrow(3);
  backend.copy(tensor_of(wide, {3}), tensor_of(narrow, {3}));
  EXPECT_EQ(narrow, (std::vector<float>{0.1f, static_cast<float>(-1.0 / 3.0),
                                        std::numeric_limits<float>::infinity()}));
}

TEST(HostBackendElementwise, CopyKeepsShapeFreeButNotSizeFreeAndRefusesIntConversions) {
  HostBackend backend;
  std::vector<float> a = uniform_floats(6, 12), b(6), c(5);
  backend.copy(tensor_of(a, {2, 3}), tensor_of(b, {6}));
  EXPECT_EQ(b, a);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.copy(tensor_of(a, {6}), tensor_of(c, {5})); }, "differ in size"));
  std::vector<std::int32_t> ids = {4, -2, 9}, ids_copy(3);
  backend.copy(tensor_of(ids, {3}), tensor_of(ids_copy, {3}));
  EXPECT_EQ(ids_copy, ids);
  std::vector<float> f(3);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { backend.copy(tensor_of(ids, {3}), tensor_of(f, {3})); },
      "cannot convert int32 to fp32"));
  std::vector<std::int64_t> wide(3);
  EXPECT_THROW(backend.copy(tensor_of(f, {3}), tensor_of(wide, {3})), std::invalid_argument);
  EXPECT_THROW(backend.copy(tensor_of(ids, {3}), tensor_of(wide, {3})), std::invalid_argument);
}

TEST(HostBackendElementwise, AddAndScaleAreElementWise) {
  HostBackend backend;
  const std::vector<float> x = uniform_floats(12, 13), y0 = uniform_floats(12, 14);
  std::vector<float> xv = x, y = y0;
  backend.add(tensor_of(xv, {3, 4}), tensor_of(y, {12}));
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], y0[i] + x[i]);
  backend.scale(tensor_of(y, {12}), -0.5f);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], (y0[i] + x[i]) * -0.5f);
  std::vector<float> short_y(11);
  EXPECT_THROW(backend.add(tensor_of(xv, {12}), tensor_of(short_y, {11})), std::invalid_argument);
  std::vector<double> d(12);
  EXPECT_THROW(backend.add(tensor_of(xv, {12}), tensor_of(d, {12})), std::invalid_argument);
}

/// dst after copying (or adding) cols columns of src [rows, sw] from src_col into dst [rows, dw]
/// at dst_col, by the definition.
std::vector<float> naive_copy_columns(const std::vector<float>& src, std::size_t sw,
                                      std::size_t src_col, std::vector<float> dst, std::size_t dw,
                                      std::size_t dst_col, std::size_t cols, bool accumulate) {
  for (std::size_t r = 0; r < dst.size() / dw; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      float& out = dst[r * dw + dst_col + c];
      out = accumulate ? out + src[r * sw + src_col + c] : src[r * sw + src_col + c];
    }
  return dst;
}

TEST(HostBackendElementwise, CopyColumnsMovesABlockAndMayAccumulate) {
  HostBackend backend;
  // src [3, 2, 2] is seen as [3, 4]; dst [3, 7].
  std::vector<float> src = uniform_floats(12, 15), dst0 = uniform_floats(21, 16);
  for (const bool accumulate : {false, true}) {
    std::vector<float> dst = dst0;
    backend.copy_columns(tensor_of(src, {3, 2, 2}), 1, tensor_of(dst, {3, 7}), 4, 3, accumulate);
    EXPECT_EQ(dst, naive_copy_columns(src, 4, 1, dst0, 7, 4, 3, accumulate)) << accumulate;
  }
}

TEST(HostBackendElementwise, CopyColumnsRefusesBlocksThatDoNotFit) {
  HostBackend backend;
  std::vector<float> src(12), dst(21), other_rows(14);
  const ops::Tensor s = tensor_of(src, {3, 4}), d = tensor_of(dst, {3, 7});
  const auto refused = [&](const ops::Tensor& from, std::int64_t src_col, const ops::Tensor& to,
                           std::int64_t dst_col, std::int64_t cols) {
    return throws_naming<std::invalid_argument>(
        [&] { backend.copy_columns(from, src_col, to, dst_col, cols, false); }, "do not fit");
  };
  EXPECT_NO_THROW(backend.copy_columns(s, 0, d, 3, 4, false));
  EXPECT_TRUE(refused(s, 1, d, 0, 4));  // past src's 4 columns
  EXPECT_TRUE(refused(s, 0, d, 4, 4));  // past dst's 7 columns
  EXPECT_TRUE(refused(s, -1, d, 0, 1));
  EXPECT_TRUE(refused(s, 0, d, -1, 1));
  EXPECT_TRUE(refused(s, 0, d, 0, -1));
  EXPECT_TRUE(refused(s, 0, tensor_of(other_rows, {2, 7}), 0, 1));
  EXPECT_THROW(backend.copy_columns(tensor_of(src, {12}), 0, d, 0, 1, false),
               std::invalid_argument);
}

TEST(HostBackendElementwise, ReluOnAnyRank) {
  HostBackend backend;
  const std::vector<float> x = uniform_floats(24, 17);
  std::vector<float> xv = x, y(24), dy = uniform_floats(24, 18), dx(24);
  backend.relu_forward(tensor_of(xv, {2, 3, 2, 2}), tensor_of(y, {24}));
  backend.relu_backward(tensor_of(y, {24}), tensor_of(dy, {4, 6}), tensor_of(dx, {24}));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f);
    EXPECT_EQ(dx[i], x[i] > 0 ? dy[i] : 0.0f);
  }
  backend.relu_forward(tensor_of(xv, {24}), tensor_of(xv, {24}));  // in place
  EXPECT_EQ(xv, y);
  std::vector<float> short_y(23);
  EXPECT_THROW(backend.relu_forward(tensor_of(xv, {24}), tensor_of(short_y, {23})),
               std::invalid_argument);
}

TEST(HostBackendElementwise, GeluForwardAndBackwardFollowTheTanhForm) {
  HostBackend backend;
  const std::vector<float> x = uniform_floats(30, 19, -4.0f, 4.0f);
  std::vector<float> xv = x, y(30), dy = uniform_floats(30, 20), dx(30);
  backend.gelu_forward(tensor_of(xv, {5, 6}), tensor_of(y, {5, 6}));
  backend.gelu_backward(tensor_of(xv, {5, 6}), tensor_of(dy, {5, 6}), tensor_of(dx, {5, 6}));
  std::vector<double> want_y(30), want_dx(30);
  const double c = std::sqrt(2.0 / std::numbers::pi);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i], t = std::tanh(c * (v + 0.044715 * v * v * v));
    want_y[i] = 0.5 * v * (1 + t);
    want_dx[i] = dy[i] * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * c * (1 + 3 * 0.044715 * v * v));
  }
  EXPECT_TRUE(all_near(doubles(y), want_y, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(dx), want_dx, 1e-6, 1e-6));
  EXPECT_THROW(backend.gelu_forward(tensor_of(xv, {30}), tensor_of(y, {30})),
               std::invalid_argument);
}

TEST(HostBackendElementwise, DropoutIsTheHostOpsMask) {
  HostBackend backend;
  const ops::DropoutMask mask{.p = 0.3f, .seed = 42, .step = 7, .first_row = 2};
  std::vector<float> x = uniform_floats(40, 21), y(40), dx(40);
  backend.dropout_forward(tensor_of(x, {4, 10}), mask, tensor_of(y, {4, 10}));
  const Tensor2 want("want", 4, 10);
  dropout_forward(Tensor2(x.data(), 4, 10), mask, want);
  int dropped = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(y[i], want.data()[i]);
    EXPECT_TRUE(y[i] == 0.0f || y[i] == x[i] * (1.0f / (1.0f - mask.p))) << i;
    dropped += y[i] == 0.0f;
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 40);
  backend.dropout_backward(tensor_of(x, {4, 10}), mask, tensor_of(dx, {4, 10}));
  EXPECT_EQ(dx, y);  // backward recomputes the same mask
  backend.dropout_forward(tensor_of(x, {4, 10}), mask, tensor_of(x, {4, 10}));  // in place
  EXPECT_EQ(x, y);
}

TEST(HostBackendElementwise, CheckNonfiniteRaisesTheFlagOnNanAndInfinities) {
  HostBackend backend;
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity()}) {
    std::vector<float> x = uniform_floats(9, 22);
    x[7] = bad;
    std::vector<std::int32_t> flag = {0};
    backend.check_nonfinite(tensor_of(x, {3, 3}), tensor_of(flag, {1}));
    EXPECT_EQ(flag[0], 1) << bad;
  }
  std::vector<float> finite = uniform_floats(9, 23);
  finite[0] = std::numeric_limits<float>::max();
  for (const std::int32_t before : {0, 1}) {
    std::vector<std::int32_t> flag = {before};
    backend.check_nonfinite(tensor_of(finite, {9}), tensor_of(flag, {1}));
    EXPECT_EQ(flag[0], before);
  }
  std::vector<std::int32_t> two(2);
  EXPECT_THROW(backend.check_nonfinite(tensor_of(finite, {9}), tensor_of(two, {2})),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels
