// ops::Tensor: extents, element counts and sizes per element type, the views it derives
// (reshaped, rows, window: addresses checked in bytes), typed access and its errors, and the
// shape and type checks ops use.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "kernels/ops/tensor.hpp"
#include "test_ops_support.hpp"

namespace scaletune::ops {
namespace {

using kernels::test::throws_naming;

std::byte* bytes_of(void* p) {
  return static_cast<std::byte*>(p);
}

TEST(OpsTensor, NoneIsUndefinedAndEmpty) {
  const Tensor none;
  EXPECT_FALSE(none.defined());
  EXPECT_EQ(none.rank(), 0);
  EXPECT_EQ(none.numel(), 0);
  EXPECT_EQ(none.bytes(), 0u);
  EXPECT_EQ(none.describe(), "none");
  EXPECT_THROW(static_cast<void>(none.dim(0)), std::out_of_range);
}

TEST(OpsTensor, ExtentsElementsAndBytesPerElementType) {
  struct Case {
    DType dtype;
    std::size_t element_bytes;  // IEEE 754 / bfloat16 / two's complement widths
  };
  for (const Case c : {Case{DType::fp32, 4}, Case{DType::fp64, 8}, Case{DType::fp16, 2},
                       Case{DType::bf16, 2}, Case{DType::int32, 4}, Case{DType::int64, 8}}) {
    const Tensor t(nullptr, c.dtype, {2, 3, 4, 5});
    EXPECT_TRUE(t.defined());
    EXPECT_EQ(t.dtype(), c.dtype);
    EXPECT_EQ(t.rank(), 4);
    EXPECT_EQ(std::vector<std::int64_t>(t.shape().begin(), t.shape().end()),
              (std::vector<std::int64_t>{2, 3, 4, 5}));
    EXPECT_EQ(t.dim(3), 5);
    EXPECT_EQ(t.numel(), 2 * 3 * 4 * 5);
    EXPECT_EQ(t.bytes(), 120 * c.element_bytes);
  }
  EXPECT_EQ(Tensor(nullptr, DType::fp32, {7, 0}).numel(), 0);
}

TEST(OpsTensor, RefusesBadRankNegativeExtentAndBadDim) {
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [] { Tensor(nullptr, DType::fp32, std::span<const std::int64_t>()); },
      "rank 0, expected 1 to 4"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [] {
        Tensor(nullptr, DType::fp32, {1, 2, 3, 4, 5});
      },
      "rank 5"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [] {
        Tensor(nullptr, DType::fp32, {2, -1});
      },
      "extents [2, -1], expected >= 0"));
  const Tensor t(nullptr, DType::fp32, {2, 3});
  EXPECT_TRUE(throws_naming<std::out_of_range>([&] { static_cast<void>(t.dim(2)); },
                                               "dim(2) of a rank-2 tensor"));
  EXPECT_THROW(static_cast<void>(t.dim(-1)), std::out_of_range);
}

TEST(OpsTensor, DescribeNamesExtentsAndType) {
  EXPECT_EQ(Tensor(nullptr, DType::fp32, {2, 64, 56, 56}).describe(), "[2, 64, 56, 56] fp32");
  EXPECT_EQ(Tensor(nullptr, DType::bf16, {7}).describe(), "[7] bf16");
  EXPECT_EQ(Tensor(nullptr, DType::int64, {3, 1}).describe(), "[3, 1] int64");
}

TEST(OpsTensor, ReshapedKeepsDataAndRefusesAnotherCount) {
  std::vector<float> v(12);
  const Tensor t(v.data(), DType::fp32, {3, 4});
  const Tensor r = t.reshaped({2, 3, 2});
  EXPECT_EQ(r.data(), v.data());
  EXPECT_EQ(r.dtype(), DType::fp32);
  EXPECT_EQ(r.describe(), "[2, 3, 2] fp32");
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { static_cast<void>(t.reshaped({5})); },
                                                   "[3, 4] fp32 cannot be seen as [5]"));
}

TEST(OpsTensor, RowsStartAtTheRowsFirstElement) {
  std::vector<float> v(4 * 2 * 3);
  const Tensor t(v.data(), DType::fp32, {4, 2, 3});
  const Tensor r = t.rows(1, 2);
  EXPECT_EQ(r.data(), v.data() + 6);
  EXPECT_EQ(r.describe(), "[2, 2, 3] fp32");
  EXPECT_EQ(t.rows(4, 0).data(), v.data() + 24);
  std::vector<std::int64_t> ids(10);
  EXPECT_EQ(Tensor(ids.data(), DType::int64, {5, 2}).rows(3, 1).data(), ids.data() + 6);
  EXPECT_EQ(Tensor(nullptr, DType::fp32, {4, 2}).rows(2, 2).data(), nullptr);
}

TEST(OpsTensor, RowsOutsideDimZeroAreRefused) {
  const Tensor t(nullptr, DType::fp32, {4, 3});
  EXPECT_TRUE(throws_naming<std::out_of_range>([&] { static_cast<void>(t.rows(3, 2)); },
                                               "rows(3, 2) of [4, 3] fp32"));
  EXPECT_THROW(static_cast<void>(t.rows(-1, 1)), std::out_of_range);
  EXPECT_THROW(static_cast<void>(t.rows(0, -1)), std::out_of_range);
}

TEST(OpsTensor, WindowOffsetsCountElementsOfTheType) {
  std::vector<std::uint16_t> halves(10);
  const Tensor h(halves.data(), DType::fp16, {10});
  const Tensor w = h.window(3, {2, 2});
  EXPECT_EQ(bytes_of(w.data()), bytes_of(halves.data()) + 3 * 2);
  EXPECT_EQ(w.describe(), "[2, 2] fp16");
  std::vector<std::int64_t> ids(6);
  const Tensor i(ids.data(), DType::int64, {2, 3});
  EXPECT_EQ(bytes_of(i.window(2, {4}).data()), bytes_of(ids.data()) + 2 * 8);
  EXPECT_EQ(bytes_of(i.window(6, {0}).data()), bytes_of(ids.data()) + 6 * 8);
}

TEST(OpsTensor, WindowBeyondTheElementsIsRefused) {
  const Tensor t(nullptr, DType::bf16, {8});
  EXPECT_TRUE(throws_naming<std::out_of_range>([&] { static_cast<void>(t.window(6, {3})); },
                                               "[3] at offset 6 exceeds [8] bf16"));
  EXPECT_THROW(static_cast<void>(t.window(-1, {1})), std::out_of_range);
}

TEST(OpsTensor, AsChecksTheElementType) {
  float f = 0;
  double d = 0;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  EXPECT_EQ(Tensor(&f, DType::fp32, {1}).as<float>(), &f);
  EXPECT_EQ(Tensor(&d, DType::fp64, {1}).as<double>(), &d);
  EXPECT_EQ(Tensor(&i32, DType::int32, {1}).as<std::int32_t>(), &i32);
  EXPECT_EQ(Tensor(&i64, DType::int64, {1}).as<std::int64_t>(), &i64);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { Tensor(&f, DType::fp32, {1}).as<double>(); }, "holds fp32, not fp64"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { Tensor(&f, DType::fp16, {2}).as<float>(); }, "holds fp16, not fp32"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { Tensor(&i64, DType::int64, {1}).as<std::int32_t>(); }, "holds int64, not int32"));
}

TEST(OpsTensor, SameShapeComparesExtentsOfDefinedTensors) {
  const Tensor a(nullptr, DType::fp32, {2, 3});
  EXPECT_TRUE(same_shape(a, Tensor(nullptr, DType::fp16, {2, 3})));
  EXPECT_FALSE(same_shape(a, Tensor(nullptr, DType::fp32, {3, 2})));
  EXPECT_FALSE(same_shape(a, Tensor(nullptr, DType::fp32, {6})));
  EXPECT_FALSE(same_shape(a, Tensor(nullptr, DType::fp32, {2, 3, 1})));
  EXPECT_FALSE(same_shape(Tensor(), Tensor()));
}

TEST(OpsTensor, RequireShapeNamesOpTensorAndWant) {
  const Tensor t(nullptr, DType::fp32, {2, 3});
  EXPECT_NO_THROW(require_shape("op", "x", t, {2, 3}));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        require_shape("gemm", "x", t, {3, 2});
      },
      "gemm: x is [2, 3] fp32, expected [3, 2]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { require_shape("loss", "loss", Tensor(), {1}); }, "loss: loss is none, expected [1]"));
}

TEST(OpsTensor, RequireDtypeNamesBothTypes) {
  const Tensor t(nullptr, DType::fp16, {4});
  EXPECT_NO_THROW(require_dtype("op", "x", t, DType::fp16));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { require_dtype("add", "y", t, DType::fp32); }, "add: y holds fp16, expected fp32"));
}

}  // namespace
}  // namespace scaletune::ops
