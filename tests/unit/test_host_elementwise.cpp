// The element-wise host ops of kernels/host/elementwise.hpp on raw arrays: fills, converting
// copies between every pair of float types (through float, as documented), integer copies and
// the refused integer conversions, sums, scaling, strided column-block copies and the
// non-finite check.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/host/elementwise.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using core::DType;
using test::converted;
using test::dtype_of;
using test::throws_naming;
using test::uniform_floats;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(HostElementwise, FillWritesEveryElementAndNoMore) {
  std::vector<Eigen::half> h(5, Eigen::half(9.0f));
  fill(h.data(), DType::fp16, 4, 0.3f);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(h[i], Eigen::half(0.3f));
  EXPECT_EQ(h[4], Eigen::half(9.0f));
  std::vector<std::int64_t> ids(3);
  fill(ids.data(), DType::int64, 3, 5.99f);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{5, 5, 5}));
}

/// src converted to Dst as convert_copy documents: through float, rounded when narrowing.
template <class Src, class Dst>
void expect_converted(const std::vector<Src>& src) {
  std::vector<Dst> dst(src.size());
  convert_copy(src.data(), dtype_of<Src>(), dst.data(), dtype_of<Dst>(), src.size());
  std::vector<Dst> want(src.size());
  for (std::size_t i = 0; i < src.size(); ++i)
    want[i] = static_cast<Dst>(static_cast<float>(src[i]));
  EXPECT_TRUE(same_bits(dst, want));
}

template <class Src>
void expect_converted_to_all(const std::vector<Src>& src) {
  expect_converted<Src, float>(src);
  expect_converted<Src, double>(src);
  expect_converted<Src, Eigen::half>(src);
  expect_converted<Src, Eigen::bfloat16>(src);
}

TEST(HostElementwise, ConvertCopyBetweenEveryPairOfFloatTypes) {
  const std::vector<float> f = uniform_floats(33, 1, -70000.0f, 70000.0f);  // fp16 overflows too
  expect_converted_to_all(f);
  expect_converted_to_all(std::vector<double>(f.begin(), f.end()));
  expect_converted_to_all(converted<Eigen::half>(uniform_floats(33, 2)));
  expect_converted_to_all(converted<Eigen::bfloat16>(uniform_floats(33, 3)));
}

TEST(HostElementwise, ConvertCopyRoundsToNearestEvenAndOverflowsToInfinity) {
  const std::vector<float> src = {1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11),
                                  70000.0f, -70000.0f};
  std::vector<Eigen::half> dst(4);
  convert_copy(src.data(), DType::fp32, dst.data(), DType::fp16, 4);
  EXPECT_EQ(static_cast<float>(dst[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(dst[1]), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(static_cast<float>(dst[2]), std::numeric_limits<float>::infinity());
  EXPECT_EQ(static_cast<float>(dst[3]), -std::numeric_limits<float>::infinity());
}

TEST(HostElementwise, ConvertCopyCopiesIntegersOnlyToTheirOwnType) {
  const std::vector<std::int64_t> big = {(std::int64_t{1} << 60) + 1, -7};
  std::vector<std::int64_t> big_copy(2);
  convert_copy(big.data(), DType::int64, big_copy.data(), DType::int64, 2);
  EXPECT_EQ(big_copy, big);  // not through float, which would round to 2^60
  std::vector<std::int32_t> narrow(2);
  std::vector<float> f(2);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { convert_copy(big.data(), DType::int64, narrow.data(), DType::int32, 2); },
      "convert_copy: cannot convert int64 to int32"));
  EXPECT_THROW(convert_copy(f.data(), DType::fp32, narrow.data(), DType::int32, 2),
               std::invalid_argument);
  EXPECT_THROW(convert_copy(narrow.data(), DType::int32, f.data(), DType::fp32, 2),
               std::invalid_argument);
}

TEST(HostElementwise, AddAndScaleTouchTheFirstNElements) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f}, y = {0.5f, 0.5f, 0.5f, 0.5f};
  add_flat(x.data(), y.data(), 3);
  EXPECT_EQ(y, (std::vector<float>{1.5f, 2.5f, 3.5f, 0.5f}));
  scale_flat(y.data(), 2, -2.0f);
  EXPECT_EQ(y, (std::vector<float>{-3.0f, -5.0f, 3.5f, 0.5f}));
}

TEST(HostElementwise, CopyColumnsUsesBothStrides) {
  // src [2, 5], dst [2, 4]: columns 3..4 of src into columns 0..1 of dst.
  const std::vector<float> src = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
  std::vector<float> dst(8, 100.0f);
  copy_columns(src.data(), 5, 3, dst.data(), 4, 0, 2, 2, false);
  EXPECT_EQ(dst, (std::vector<float>{3, 4, 100, 100, 13, 14, 100, 100}));
  copy_columns(src.data(), 5, 0, dst.data(), 4, 1, 2, 3, true);
  EXPECT_EQ(dst, (std::vector<float>{3, 4, 101, 102, 13, 24, 111, 112}));
}

TEST(HostElementwise, AnyNonfiniteLooksAtExactlyNValues) {
  std::vector<float> x = uniform_floats(10, 4);
  EXPECT_FALSE(any_nonfinite(x.data(), x.size()));
  x[9] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(any_nonfinite(x.data(), 10));
  EXPECT_FALSE(any_nonfinite(x.data(), 9));
  x[0] = -std::numeric_limits<float>::infinity();
  EXPECT_TRUE(any_nonfinite(x.data(), 1));
  EXPECT_FALSE(any_nonfinite(x.data(), 0));
}

}  // namespace
}  // namespace scaletune::kernels
