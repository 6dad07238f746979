// Element types and reductions of the communicator interface: dtype sizes, names and keys, and
// the host arithmetic host backends use (the 2-byte float sum of the MPI user op and the
// division that finishes an average) against values worked out from the IEEE 754 definitions.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "harness/core/dtype.hpp"
#include "harness/core/host_reduce.hpp"
#include "harness/core/reduce_op.hpp"

namespace scaletune::core {
namespace {

constexpr DType kAllTypes[] = {DType::fp32, DType::fp64,  DType::fp16,
                               DType::bf16, DType::int32, DType::int64};

TEST(DType, SizesAreTheTypesSizes) {
  EXPECT_EQ(dtype_bytes(DType::fp32), sizeof(float));
  EXPECT_EQ(dtype_bytes(DType::fp64), sizeof(double));
  EXPECT_EQ(dtype_bytes(DType::fp16), 2u);  // IEEE 754 binary16
  EXPECT_EQ(dtype_bytes(DType::bf16), 2u);  // top half of a binary32
  EXPECT_EQ(dtype_bytes(DType::int32), sizeof(std::int32_t));
  EXPECT_EQ(dtype_bytes(DType::int64), sizeof(std::int64_t));
}

TEST(DType, NamesAreNcclTestsTypeColumn) {
  EXPECT_EQ(dtype_name(DType::fp32), "float");
  EXPECT_EQ(dtype_name(DType::fp64), "double");
  EXPECT_EQ(dtype_name(DType::fp16), "half");
  EXPECT_EQ(dtype_name(DType::bf16), "bfloat16");
  EXPECT_EQ(dtype_name(DType::int32), "int32");
  EXPECT_EQ(dtype_name(DType::int64), "int64");
}

TEST(DType, KeysAreTheJobSpellingOfTheSameType) {
  const std::array<job::DataType, 6> job_types = {job::DataType::fp32,  job::DataType::fp64,
                                                  job::DataType::fp16,  job::DataType::bf16,
                                                  job::DataType::int32, job::DataType::int64};
  for (std::size_t i = 0; i < job_types.size(); ++i) {
    EXPECT_EQ(dtype_of(job_types[i]), kAllTypes[i]) << dtype_key(kAllTypes[i]);
    EXPECT_EQ(dtype_key(kAllTypes[i]), job::data_type_text(job_types[i]));
  }
  EXPECT_EQ(dtype_key(DType::bf16), "bf16");
}

TEST(ReduceOp, NamesAreTheJobSpelling) {
  EXPECT_EQ(reduce_op_name(ReduceOp::sum), "sum");
  EXPECT_EQ(reduce_op_name(ReduceOp::avg), "avg");
  EXPECT_EQ(reduce_op_of(job::ReductionOp::avg), ReduceOp::avg);
  EXPECT_EQ(reduce_op_of(job::ReductionOp::sum), ReduceOp::sum);
}

// ---- Naive reference: IEEE 754 binary encoding of exactly representable values -------------

/// A 16-bit binary float format: `mantissa_bits` stored fraction bits, the rest (after the sign)
/// exponent bits with bias 2^(e-1) - 1 (IEEE 754-2008, 3.4).
struct Format16 {
  int mantissa_bits;
  DType type;
  int exponent_bits() const { return 15 - mantissa_bits; }
  int bias() const { return (1 << (exponent_bits() - 1)) - 1; }
};
constexpr Format16 kHalf{10, DType::fp16};
constexpr Format16 kBFloat16{7, DType::bf16};

/// Bits of `value` in `f`; the value must be representable exactly (or infinite).
std::uint16_t encode(double value, Format16 f) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double a = std::fabs(value);
  const int max_exponent = (1 << f.exponent_bits()) - 1;
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | (max_exponent << f.mantissa_bits));
  if (a == 0) return sign;
  int e = std::ilogb(a);
  const int min_exponent = 1 - f.bias();
  const bool subnormal = e < min_exponent;
  if (subnormal) e = min_exponent;
  const double fraction =
      std::ldexp(a, f.mantissa_bits - e) - (subnormal ? 0 : 1 << f.mantissa_bits);
  EXPECT_EQ(fraction, std::floor(fraction)) << value << " is not exact in the format";
  EXPECT_LT(e + f.bias(), max_exponent) << value << " overflows the format";
  const int biased = subnormal ? 0 : e + f.bias();
  return static_cast<std::uint16_t>(sign | (biased << f.mantissa_bits) |
                                    static_cast<int>(fraction));
}

struct AddCase {
  double a, b, want;
};

/// Sums the cases element-wise in one call: each want must be the correctly rounded a + b.
void expect_sums(Format16 f, const std::vector<AddCase>& cases) {
  std::vector<std::uint16_t> in, inout, want;
  for (const AddCase& c : cases) {
    in.push_back(encode(c.a, f));
    inout.push_back(encode(c.b, f));
    want.push_back(encode(c.want, f));
  }
  add_half_into(f.type, in.data(), inout.data(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(inout[i], want[i]) << dtype_key(f.type) << ": " << cases[i].a << " + " << cases[i].b
                                 << " should be " << cases[i].want;
}

TEST(Encode, MatchesPublishedBitPatterns) {
  EXPECT_EQ(encode(1.0, kHalf), 0x3C00);
  EXPECT_EQ(encode(65504, kHalf), 0x7BFF);    // largest finite binary16
  EXPECT_EQ(encode(0x1p-24, kHalf), 0x0001);  // smallest subnormal
  EXPECT_EQ(encode(-2.0, kHalf), 0xC000);
  EXPECT_EQ(encode(1.0, kBFloat16), 0x3F80);
  EXPECT_EQ(encode(-2.0, kBFloat16), 0xC000);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(HalfSum, BFloat16RoundsToNearestTiesToEven) {
  // bf16 keeps 8 significant bits: the spacing just above 1 is 2^-7.
  expect_sums(kBFloat16, {
                             {1.0, 0x1p-8, 1.0},                    // tie, 1 is even
                             {1.0 + 0x1p-7, 0x1p-8, 1.0 + 0x1p-6},  // tie, 1 + 2^-6 is even
                             {1.0, 3 * 0x1p-9, 1.0 + 0x1p-7},       // above the tie: up
                             {1.0, 0x1p-9, 1.0},                    // below the tie: down
                             {-1.0, 1.0, 0.0},                      // exact, +0
                             {3.0, 5.0, 8.0},                       // exact
                             {0x1p127 * 1.5, 0x1p127, kInf},        // past the largest: inf
                         });
}

TEST(HalfSum, HalfRoundsToNearestTiesToEvenAndOverflows) {
  // fp16 keeps 11 significant bits: the spacing at 2048 is 2, at 65504 it is 32.
  expect_sums(kHalf, {
                         {2048, 1, 2048},              // tie, 2048 is even
                         {2050, 1, 2052},              // tie, 2052 is even
                         {2048, 3, 2052},              // 2051: tie between 2050 and 2052
                         {65504, 32, kInf},            // 65536 is past the largest finite
                         {65504, 16, kInf},            // 65520: tie, the even neighbour is 2^16
                         {65504, 15, 65504},           // below the tie
                         {0x1p-24, 0x1p-24, 0x1p-23},  // subnormals add exactly
                         {0.5, 0.25, 0.75},
                         {-kInf, -1, -kInf},
                     });
}

TEST(HalfSum, InfinitiesOfOppositeSignGiveNaN) {
  for (const Format16 f : {kHalf, kBFloat16}) {
    std::uint16_t a = encode(kInf, f), b = encode(-kInf, f);
    add_half_into(f.type, &a, &b, 1);
    const int exponent = (b >> f.mantissa_bits) & ((1 << f.exponent_bits()) - 1);
    const int mantissa = b & ((1 << f.mantissa_bits) - 1);
    EXPECT_EQ(exponent, (1 << f.exponent_bits()) - 1) << dtype_key(f.type);
    EXPECT_NE(mantissa, 0) << dtype_key(f.type);
  }
}

TEST(HalfSum, OtherTypesAreRefused) {
  float a = 1, b = 2;
  EXPECT_THROW(add_half_into(DType::fp32, &a, &b, 1), std::invalid_argument);
}

// ---- Average: the sum divided by the rank count -------------------------------------------

template <typename T>
std::vector<T> divided(DType type, std::vector<T> data, int ranks) {
  divide_by_ranks(type, data.data(), data.size(), ranks);
  return data;
}

TEST(DivideByRanks, IntegersTruncateTowardZero) {
  EXPECT_EQ(divided<std::int32_t>(DType::int32, {-7, 7, -1, 5, 0}, 2),
            (std::vector<std::int32_t>{-3, 3, 0, 2, 0}));
  // (2^40 + 2) / 3 = 366503875926 exactly; -(2^40 + 3) / 3 = -366503875926.33 truncates to
  // -366503875926 (flooring would give ...927), and -2 / 3 to 0.
  const std::int64_t big = (std::int64_t{1} << 40) + 2;
  EXPECT_EQ(divided<std::int64_t>(DType::int64, {big, -(big + 1), -2}, 3),
            (std::vector<std::int64_t>{366503875926, -366503875926, 0}));
}

TEST(DivideByRanks, FloatsDivideInTheirTypeOrInFloatRoundedOnce) {
  EXPECT_EQ(divided<float>(DType::fp32, {1, -6}, 3), (std::vector<float>{1.0f / 3, -2}));
  EXPECT_EQ(divided<double>(DType::fp64, {1, 7}, 4), (std::vector<double>{0.25, 1.75}));
  // 1/3 = 1.0101...b x 2^-2: fp16 keeps 10 fraction bits, 0101010101|0101... rounds down to
  // 0x3555; bf16 keeps 7, 0101010|1010... rounds up to 0x3EAB.
  EXPECT_EQ(divided<std::uint16_t>(DType::fp16, {encode(1, kHalf), encode(6, kHalf)}, 3),
            (std::vector<std::uint16_t>{0x3555, encode(2, kHalf)}));
  EXPECT_EQ(divided<std::uint16_t>(DType::bf16, {encode(1, kBFloat16)}, 3),
            (std::vector<std::uint16_t>{0x3EAB}));
  EXPECT_THROW(divide_by_ranks(DType::fp32, nullptr, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::core
