// Embedding-bag forward and backward and the row-wise sparse optimizer steps against naive loops
// written here: a dense [R, D] gradient accumulated position by position, and the SGD and
// FBGEMM rowwise-Adagrad formulas evaluated in double. Tables stored in fp32, fp16 and bf16
// are also checked bit for bit against the same formulas evaluated in float in the kernels'
// order, each result rounded to the table's type by Eigen's conversion, in every instruction-set
// variant this CPU runs (HostIsa), as are the fp32 <-> fp16 / bf16 conversions the optimizer
// steps use, against Eigen's on every 16-bit pattern and on the fp32 values between them.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/host/detail/half_convert.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/host_isa.hpp"
#include "kernels/host/sparse_optimizer.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::throws_naming;
using test::to_doubles;

/// A batch of bags in CSR form.
struct Bags {
  IndexVector indices;
  IndexVector offsets;
  std::size_t count() const { return offsets.extent(0) - 1; }
};

/// Bags from explicit lists of row ids.
Bags make_bags(const std::vector<std::vector<std::int64_t>>& lists) {
  std::size_t nnz = 0;
  for (const auto& list : lists) nnz += list.size();
  Bags bags{IndexVector("indices", nnz), IndexVector("offsets", lists.size() + 1)};
  std::size_t k = 0;
  for (std::size_t b = 0; b < lists.size(); ++b) {
    for (const std::int64_t row : lists[b]) bags.indices(k++) = row;
    bags.offsets(b + 1) = static_cast<std::int64_t>(k);
  }
  return bags;
}

/// `count` bags of 0..max_len random rows in [0, rows) from mt19937(seed); with few rows,
/// rows repeat inside and across bags. Every third bag is empty.
Bags random_bags(std::size_t count, std::size_t max_len, std::size_t rows, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::size_t> len_dist(1, max_len);
  std::uniform_int_distribution<std::int64_t> row_dist(0, static_cast<std::int64_t>(rows) - 1);
  std::vector<std::vector<std::int64_t>> lists(count);
  for (std::size_t b = 0; b < count; ++b) {
    if (b % 3 == 2) continue;
    lists[b].resize(len_dist(gen));
    for (auto& row : lists[b]) row = row_dist(gen);
  }
  return make_bags(lists);
}

/// Naive forward: out[b][d] in double.
std::vector<double> naive_forward(const Tensor2& table, const Bags& bags, Pooling mode) {
  const std::size_t dim = table.extent(1);
  std::vector<double> out(bags.count() * dim, 0.0);
  for (std::size_t b = 0; b < bags.count(); ++b) {
    const auto len = bags.offsets(b + 1) - bags.offsets(b);
    for (auto k = bags.offsets(b); k < bags.offsets(b + 1); ++k) {
      for (std::size_t d = 0; d < dim; ++d)
        out[b * dim + d] += table(bags.indices(k), d) / (mode == Pooling::kMean ? len : 1.0);
    }
  }
  return out;
}

/// Naive backward: the dense [rows, D] gradient, row-major, in double.
std::vector<double> naive_dense_grad(const Tensor2& grad_out, const Bags& bags, Pooling mode,
                                     std::size_t rows) {
  const std::size_t dim = grad_out.extent(1);
  std::vector<double> dense(rows * dim, 0.0);
  for (std::size_t b = 0; b < bags.count(); ++b) {
    const auto len = bags.offsets(b + 1) - bags.offsets(b);
    for (auto k = bags.offsets(b); k < bags.offsets(b + 1); ++k) {
      const auto row = static_cast<std::size_t>(bags.indices(k));
      for (std::size_t d = 0; d < dim; ++d)
        dense[row * dim + d] += grad_out(b, d) / (mode == Pooling::kMean ? len : 1.0);
    }
  }
  return dense;
}

/// Sorted distinct row ids the bags touch.
std::vector<std::int64_t> touched_rows(const Bags& bags) {
  const std::set<std::int64_t> rows(bags.indices.data(),
                                    bags.indices.data() + bags.indices.extent(0));
  return {rows.begin(), rows.end()};
}

/// Checks a sparse gradient against the dense naive one: same touched rows, same values.
void expect_matches_dense(const SparseRowGrad& grad, const std::vector<double>& dense,
                          const std::vector<std::int64_t>& expected_rows, std::size_t dim) {
  const std::vector<std::int64_t> rows(grad.rows.data(), grad.rows.data() + grad.rows.extent(0));
  ASSERT_EQ(rows, expected_rows);
  std::vector<double> expected;
  for (const std::int64_t row : expected_rows) {
    const auto begin = dense.begin() + static_cast<std::ptrdiff_t>(row * dim);
    expected.insert(expected.end(), begin, begin + static_cast<std::ptrdiff_t>(dim));
  }
  EXPECT_TRUE(all_near(to_doubles(grad.values), expected, 1e-6, 1e-5));
}

class EmbeddingBagModes : public ::testing::TestWithParam<Pooling> {};

TEST_P(EmbeddingBagModes, ForwardMatchesNaiveLoopWithEmptyBagsAndRepeats) {
  constexpr std::size_t kRows = 12, kDim = 7, kBags = 20;
  const Tensor2 table("table", kRows, kDim);
  fill_uniform(table, 1, -1.0f, 1.0f);
  const Bags bags = random_bags(kBags, 9, kRows, 2);
  const Tensor2 out("out", kBags, kDim);
  fill_uniform(out, 3, 5.0f, 6.0f);  // stale values must be overwritten
  embedding_bag_forward(table, bags.indices, bags.offsets, GetParam(), out);
  EXPECT_TRUE(all_near(to_doubles(out), naive_forward(table, bags, GetParam()), 1e-6, 1e-5));
}

TEST_P(EmbeddingBagModes, ForwardOfAllEmptyBagsIsZero) {
  const Tensor2 table("table", 4, 3);
  fill_uniform(table, 4, -1.0f, 1.0f);
  const Bags bags = make_bags({{}, {}, {}});
  const Tensor2 out("out", 3, 3);
  fill_uniform(out, 5, 1.0f, 2.0f);
  embedding_bag_forward(table, bags.indices, bags.offsets, GetParam(), out);
  EXPECT_TRUE(all_near(to_doubles(out), std::vector<double>(9, 0.0), 0.0));
}

TEST_P(EmbeddingBagModes, BackwardMatchesDenseNaiveGradientOnTouchedRowsOnly) {
  constexpr std::size_t kRows = 40, kDim = 5, kBags = 30;
  const Bags bags = random_bags(kBags, 6, kRows, 6);
  const Tensor2 grad_out("grad_out", kBags, kDim);
  fill_uniform(grad_out, 7, -1.0f, 1.0f);
  const SparseRowGrad grad =
      embedding_bag_backward(grad_out, bags.indices, bags.offsets, GetParam(), kRows);
  const auto expected_rows = touched_rows(bags);
  ASSERT_LT(expected_rows.size(), kRows);  // some rows untouched: they must be absent
  ASSERT_GT(bags.indices.extent(0), expected_rows.size());  // some rows occur more than once
  expect_matches_dense(grad, naive_dense_grad(grad_out, bags, GetParam(), kRows), expected_rows,
                       kDim);
}

TEST_P(EmbeddingBagModes, BackwardOfAllEmptyBagsTouchesNoRow) {
  const Bags bags = make_bags({{}, {}});
  const Tensor2 grad_out("grad_out", 2, 4);
  fill_uniform(grad_out, 8, -1.0f, 1.0f);
  const SparseRowGrad grad =
      embedding_bag_backward(grad_out, bags.indices, bags.offsets, GetParam(), 10);
  EXPECT_EQ(grad.rows.extent(0), 0u);
  EXPECT_EQ(grad.values.extent(0), 0u);
  EXPECT_EQ(grad.values.extent(1), 4u);
}

/// "Sum" or "Mean": readable test names for the two pooling modes.
std::string pooling_name(const ::testing::TestParamInfo<Pooling>& param_info) {
  return param_info.param == Pooling::kSum ? "Sum" : "Mean";
}

INSTANTIATE_TEST_SUITE_P(SumAndMean, EmbeddingBagModes,
                         ::testing::Values(Pooling::kSum, Pooling::kMean), pooling_name);

TEST(EmbeddingBag, BackwardSumsDuplicatesWithinAndAcrossBagsByHand) {
  // Bags {2, 0, 2}, {}, {2}; grad_out rows 1, 10, 100 (D = 1).
  // Sum:  row 0 gets 1, row 2 gets 1 + 1 + 100 = 102.
  // Mean: row 0 gets 1/3, row 2 gets 2/3 + 100.
  const Bags bags = make_bags({{2, 0, 2}, {}, {2}});
  const Tensor2 grad_out("grad_out", 3, 1);
  grad_out(0, 0) = 1.0f;
  grad_out(1, 0) = 10.0f;
  grad_out(2, 0) = 100.0f;
  const SparseRowGrad sum =
      embedding_bag_backward(grad_out, bags.indices, bags.offsets, Pooling::kSum, 3);
  ASSERT_EQ(sum.rows.extent(0), 2u);
  EXPECT_EQ(sum.rows(0), 0);
  EXPECT_EQ(sum.rows(1), 2);
  EXPECT_FLOAT_EQ(sum.values(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(sum.values(1, 0), 102.0f);
  const SparseRowGrad mean =
      embedding_bag_backward(grad_out, bags.indices, bags.offsets, Pooling::kMean, 3);
  EXPECT_NEAR(mean.values(0, 0), 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(mean.values(1, 0), 2.0 / 3.0 + 100.0, 1e-5);
}

TEST(EmbeddingBag, RejectsBadOffsetsNamingPositionAndValue) {
  const Tensor2 table("table", 5, 2), out("out", 2, 2);
  const Bags good = make_bags({{1, 2}, {3}});
  const auto forward = [&](const IndexVector& offsets) {
    return [&table, &good, &out, offsets] {
      embedding_bag_forward(table, good.indices, offsets, Pooling::kSum, out);
    };
  };
  const IndexVector offsets("offsets", 3);
  offsets(0) = 1, offsets(1) = 2, offsets(2) = 3;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      forward(offsets), "embedding_bag_forward: offsets[0] = 1 must be 0"));
  offsets(0) = 0, offsets(1) = 3, offsets(2) = 2;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(forward(offsets),
                                                   "offsets[2] = 2 is less than offsets[1] = 3"));
  offsets(1) = 2, offsets(2) = 4;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      forward(offsets), "offsets[2] = 4 must equal the number of indices, 3"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(forward(IndexVector("offsets", 2)),
                                                   "offsets is [2], expected [3]"));
}

TEST(EmbeddingBag, RejectsOutOfRangeIndicesAndShapeMismatches) {
  const Tensor2 table("table", 5, 2), out("out", 2, 2);
  const Bags too_big = make_bags({{1, 5}, {3}});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { embedding_bag_forward(table, too_big.indices, too_big.offsets, Pooling::kSum, out); },
      "embedding_bag_forward: indices[1] = 5 is outside [0, 5)"));
  const Bags negative = make_bags({{1}, {-1}});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { embedding_bag_backward(out, negative.indices, negative.offsets, Pooling::kMean, 5); },
      "embedding_bag_backward: indices[1] = -1 is outside [0, 5)"));
  const Tensor2 wide_out("out", 2, 3);
  const Bags good = make_bags({{1}, {3}});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { embedding_bag_forward(table, good.indices, good.offsets, Pooling::kSum, wide_out); },
      "out is [2, 3], expected [2, 2]"));
}

/// A sparse gradient over a [rows, dim] table: the rows of a random batch, random values.
SparseRowGrad random_sparse_grad(std::size_t rows, std::size_t dim, unsigned seed) {
  const Bags bags = random_bags(16, 4, rows, seed);
  const Tensor2 grad_out("grad_out", bags.count(), dim);
  fill_uniform(grad_out, seed + 1, -1.0f, 1.0f);
  return embedding_bag_backward(grad_out, bags.indices, bags.offsets, Pooling::kSum, rows);
}

/// Copy of a view's elements, for bit-for-bit comparisons of untouched rows.
template <class ViewType>
std::vector<float> snapshot(const ViewType& v) {
  return std::vector<float>(v.data(), v.data() + v.size());
}

/// Whether row `row` of the [*, dim] arrays a and b holds the same bits.
bool same_row_bits(const std::vector<float>& a, const std::vector<float>& b, std::size_t row,
                   std::size_t dim) {
  return std::memcmp(a.data() + row * dim, b.data() + row * dim, dim * sizeof(float)) == 0;
}

TEST(EmbeddingBagOptimizer, SparseSgdMovesTouchedRowsOnly) {
  constexpr std::size_t kRows = 64, kDim = 6;
  constexpr float kLr = 0.05f;
  const Tensor2 table("table", kRows, kDim);
  fill_uniform(table, 10, -1.0f, 1.0f);
  const SparseRowGrad grad = random_sparse_grad(kRows, kDim, 11);
  const std::vector<float> before = snapshot(table);
  std::vector<double> expected(before.begin(), before.end());
  for (std::size_t u = 0; u < grad.rows.extent(0); ++u) {
    for (std::size_t d = 0; d < kDim; ++d)
      expected[static_cast<std::size_t>(grad.rows(u)) * kDim + d] -= kLr * grad.values(u, d);
  }
  sparse_sgd_step(table, grad, kLr);
  EXPECT_TRUE(all_near(to_doubles(table), expected, 1e-6, 1e-6));
  const std::set<std::int64_t> touched(grad.rows.data(), grad.rows.data() + grad.rows.extent(0));
  ASSERT_LT(touched.size(), kRows);
  const std::vector<float> after = snapshot(table);
  for (std::size_t r = 0; r < kRows; ++r) {
    if (touched.contains(static_cast<std::int64_t>(r))) continue;
    EXPECT_TRUE(same_row_bits(before, after, r, kDim)) << "untouched row " << r << " moved";
  }
}

TEST(EmbeddingBagOptimizer, RowwiseAdagradMatchesFbgemmFormulaOverTwoSteps) {
  constexpr std::size_t kRows = 64, kDim = 6;
  const RowwiseAdagradOptions opt{0.1f, 1e-8f};
  const Tensor2 table("table", kRows, kDim);
  const Vector state("state", kRows);
  fill_uniform(table, 20, -1.0f, 1.0f);
  fill_uniform(state, 21, 0.0f, 0.5f);
  const std::vector<float> table_before = snapshot(table), state_before = snapshot(state);
  std::vector<double> w(table_before.begin(), table_before.end());
  std::vector<double> h(state_before.begin(), state_before.end());
  std::set<std::int64_t> touched;
  for (const unsigned seed : {22u, 23u}) {
    const SparseRowGrad grad = random_sparse_grad(kRows, kDim, seed);
    for (std::size_t u = 0; u < grad.rows.extent(0); ++u) {
      const auto row = static_cast<std::size_t>(grad.rows(u));
      touched.insert(grad.rows(u));
      double mean_square = 0.0;
      for (std::size_t d = 0; d < kDim; ++d) mean_square += grad.values(u, d) * grad.values(u, d);
      h[row] += mean_square / kDim;
      const double multiplier = opt.lr / (std::sqrt(h[row]) + opt.eps);
      for (std::size_t d = 0; d < kDim; ++d) w[row * kDim + d] -= multiplier * grad.values(u, d);
    }
    sparse_rowwise_adagrad_step(table, state, grad, opt);
  }
  EXPECT_TRUE(all_near(to_doubles(state), h, 1e-6, 1e-5));
  EXPECT_TRUE(all_near(to_doubles(table), w, 1e-6, 1e-5));
  ASSERT_LT(touched.size(), kRows);
  const std::vector<float> table_after = snapshot(table), state_after = snapshot(state);
  for (std::size_t r = 0; r < kRows; ++r) {
    if (touched.contains(static_cast<std::int64_t>(r))) continue;
    EXPECT_TRUE(same_row_bits(table_before, table_after, r, kDim)) << "untouched row " << r;
    EXPECT_TRUE(same_row_bits(state_before, state_after, r, 1)) << "state of row " << r;
  }
}

TEST(EmbeddingBagOptimizer, RejectsUnsortedOrOutOfRangeRowsAndWrongStateLength) {
  const Tensor2 table("table", 4, 2);
  SparseRowGrad grad{IndexVector("rows", 2), Tensor2("values", 2, 2)};
  grad.rows(0) = 3, grad.rows(1) = 1;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { sparse_sgd_step(table, grad, 0.1f); },
      "sparse_sgd_step: grad.rows[1] = 1 is not greater than grad.rows[0] = 3"));
  grad.rows(0) = 1, grad.rows(1) = 4;
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { sparse_sgd_step(table, grad, 0.1f); },
                                                   "grad.rows[1] = 4 is outside [0, 4)"));
  grad.rows(1) = 2;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { sparse_rowwise_adagrad_step(table, Vector("state", 3), grad, {}); },
      "sparse_rowwise_adagrad_step: state is [3], expected [4]"));
  const SparseRowGrad narrow{grad.rows, Tensor2("values", 2, 1)};
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { sparse_sgd_step(table, narrow, 0.1f); },
                                                   "grad.values is [2, 1], expected [2, 2]"));
}

/// A [rows, dim] table of T (float, Eigen::half or Eigen::bfloat16).
template <class T>
using TableOf = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// A [rows, dim] table of T holding values m * 2^e, m uniform in [-1, 1) and e uniform in
/// [-12, 12] from mt19937(seed), each rounded to T by Eigen's conversion. The spread of
/// magnitudes makes fp32 sums of even a few fp16 or bf16 values round, so their order shows.
template <class T>
TableOf<T> random_table(std::size_t rows, std::size_t dim, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  const TableOf<T> table("table", rows, dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t d = 0; d < dim; ++d) {
      const float m = mantissa(gen);
      table(r, d) = static_cast<T>(std::ldexp(m, exponent(gen)));
    }
  }
  return table;
}

/// Naive forward in fp32 as the contract states it: per out[b][d], each stored value converted
/// to float and added in index order starting from 0, then times 1 / length for kMean.
template <class T>
std::vector<float> naive_float_forward(const TableOf<T>& table, const Bags& bags, Pooling mode) {
  const std::size_t dim = table.extent(1);
  std::vector<float> out(bags.count() * dim);
  for (std::size_t b = 0; b < bags.count(); ++b) {
    const auto len = bags.offsets(b + 1) - bags.offsets(b);
    const float scale = mode == Pooling::kMean && len > 0 ? 1.0f / static_cast<float>(len) : 1.0f;
    for (std::size_t d = 0; d < dim; ++d) {
      float sum = 0.0f;
      for (auto k = bags.offsets(b); k < bags.offsets(b + 1); ++k)
        sum += static_cast<float>(table(bags.indices(k), d));
      out[b * dim + d] = sum * scale;
    }
  }
  return out;
}

/// Success when the n elements at `actual` and `expected` hold the same bits; otherwise names
/// the first differing element and its two values.
template <class T>
::testing::AssertionResult same_bits(const T* actual, const T* expected, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(actual + i, expected + i, sizeof(T)) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << ": " << static_cast<float>(actual[i]) << " vs expected "
             << static_cast<float>(expected[i]);
  }
  return ::testing::AssertionSuccess();
}

/// Copy of a table's elements, row-major.
template <class T>
std::vector<T> elements(const TableOf<T>& table) {
  return std::vector<T>(table.data(), table.data() + table.size());
}

/// Tests run for every stored element type: fp32, fp16 and bf16.
template <class T>
class EmbeddingTableTypes : public ::testing::Test {};

/// "Fp32", "Fp16" or "Bf16": readable test names for the element types.
struct ElementTypeName {
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, Eigen::half>) return "Fp16";
    if (std::is_same_v<T, Eigen::bfloat16>) return "Bf16";
    return "Fp32";
  }
};

using ElementTypes = ::testing::Types<float, Eigen::half, Eigen::bfloat16>;
TYPED_TEST_SUITE(EmbeddingTableTypes, ElementTypes, ElementTypeName);

/// The HostIsa variants this build and CPU run, baseline first.
std::vector<HostIsa> available_isas() {
  std::vector<HostIsa> isas;
  for (const HostIsa isa : {HostIsa::kBaseline, HostIsa::kAvx2, HostIsa::kAvx512}) {
    if (host_isa_available(isa)) isas.push_back(isa);
  }
  return isas;
}

/// Runs the forward with every available variant and checks each against naive_float_forward
/// bit for bit, in both pooling modes.
template <class T>
void expect_forward_equals_float_loop(const TableOf<T>& table, const Bags& bags) {
  const std::size_t dim = table.extent(1);
  for (const HostIsa isa : available_isas()) {
    for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
      const Tensor2 out("out", bags.count(), dim);
      fill_uniform(out, 31, 5.0f, 6.0f);  // stale values must be overwritten
      embedding_bag_forward(isa, table, bags.indices, bags.offsets, mode, out);
      const std::vector<float> expected = naive_float_forward(table, bags, mode);
      EXPECT_TRUE(same_bits(out.data(), expected.data(), expected.size()))
          << to_string(isa) << ", dim " << dim << (mode == Pooling::kSum ? ", sum" : ", mean");
    }
  }
}

TYPED_TEST(EmbeddingTableTypes, ForwardEqualsFloatLoopBitForBitAcrossBlockWidths) {
  // Every dim up to 136 (each block width of every variant: multiples of 8 below its widest
  // block of 32 to 128 columns, tails of 1 to 7, fp16's 8-value F16C conversions) and dims
  // across several widest blocks; 12 rows for 20 bags of up to 9 lookups, so rows repeat within
  // and across bags; every third bag is empty.
  constexpr std::size_t kRows = 12, kBags = 20;
  std::vector<std::size_t> dims(136);
  std::iota(dims.begin(), dims.end(), std::size_t{1});
  dims.insert(dims.end(), {200, 263, 384});
  for (const std::size_t dim : dims) {
    const auto table = random_table<TypeParam>(kRows, dim, static_cast<unsigned>(dim));
    expect_forward_equals_float_loop(table, random_bags(kBags, 9, kRows, 30));
  }
}

/// Special values of T, all of sign `sign`: zero, the smallest and largest subnormal, the
/// smallest normal, 1 and the values on either side, 1.5 (sums of it and 1 + ulp round), the
/// largest finite value (a few of them overflow fp32 for bf16) and infinity. One sign per column
/// keeps the sums free of NaN (no inf - inf).
template <class T>
std::vector<T> special_values(float sign) {
  using Limits = std::numeric_limits<T>;
  const float one_up = std::ldexp(1.0f, 1 - Limits::digits);
  std::vector<float> magnitudes{
      0.0f,
      static_cast<float>(Limits::denorm_min()),
      static_cast<float>(Limits::min()) - static_cast<float>(Limits::denorm_min()),
      static_cast<float>(Limits::min()),
      1.0f - one_up / 2,
      1.0f,
      1.0f + one_up,
      1.5f,
      static_cast<float>(Limits::max()),
      std::numeric_limits<float>::infinity()};
  std::vector<T> values;
  for (const float m : magnitudes) values.push_back(static_cast<T>(sign * m));
  return values;
}

TYPED_TEST(EmbeddingTableTypes, ForwardOfSubnormalsInfinitiesAndRoundingCasesEqualsFloatLoop) {
  // 24 rows by 72 columns (a 64-column block and an 8-column one) cycling through
  // special_values, negative in odd columns; bags of up to 12 lookups, some empty.
  constexpr std::size_t kRows = 24, kDim = 72, kBags = 30;
  const std::vector<TypeParam> positive = special_values<TypeParam>(1.0f);
  const std::vector<TypeParam> negative = special_values<TypeParam>(-1.0f);
  const TableOf<TypeParam> table("table", kRows, kDim);
  for (std::size_t r = 0; r < kRows; ++r) {
    for (std::size_t d = 0; d < kDim; ++d) {
      const auto& values = d % 2 == 0 ? positive : negative;
      table(r, d) = values[(r * 7 + d * 3) % values.size()];
    }
  }
  expect_forward_equals_float_loop(table, random_bags(kBags, 12, kRows, 33));
}

TYPED_TEST(EmbeddingTableTypes, SparseSgdEqualsFloatFormulaRoundedBitForBit) {
  // 9 columns (one 8-value conversion and a tail) and 300 (two chunks of the optimizer's fp32
  // buffer). The first touched row's gradient also holds NaNs with payloads, infinities, values
  // whose update overflows T and ones whose update leaves a subnormal.
  constexpr std::size_t kRows = 64;
  constexpr float kLr = 0.05f;
  for (const std::size_t dim : {9, 300}) {
    const auto table = random_table<TypeParam>(kRows, dim, 40);
    const SparseRowGrad grad = random_sparse_grad(kRows, dim, 41);
    ASSERT_LT(grad.rows.extent(0), kRows);  // untouched rows must keep their bits
    const float specials[] = {std::bit_cast<float>(0x7fc01234u),
                              std::bit_cast<float>(0xff812345u),
                              std::numeric_limits<float>::infinity(),
                              -3e38f,
                              2e6f,
                              -2e6f,
                              20.0f * static_cast<float>(std::numeric_limits<TypeParam>::min())};
    for (std::size_t d = 0; d < std::size(specials); ++d) grad.values(0, d) = specials[d];
    std::vector<TypeParam> expected = elements(table);
    for (std::size_t u = 0; u < grad.rows.extent(0); ++u) {
      for (std::size_t d = 0; d < dim; ++d) {
        TypeParam& w = expected[static_cast<std::size_t>(grad.rows(u)) * dim + d];
        w = static_cast<TypeParam>(static_cast<float>(w) - kLr * grad.values(u, d));
      }
    }
    sparse_sgd_step(table, grad, kLr);
    EXPECT_TRUE(same_bits(table.data(), expected.data(), expected.size())) << "dim " << dim;
  }
}

TYPED_TEST(EmbeddingTableTypes, RowwiseAdagradEqualsFloatFormulaRoundedBitForBitOverTwoSteps) {
  constexpr std::size_t kRows = 64, kDim = 9;
  const RowwiseAdagradOptions opt{0.1f, 1e-8f};
  const auto table = random_table<TypeParam>(kRows, kDim, 50);
  const Vector state("state", kRows);
  fill_uniform(state, 51, 0.0f, 0.5f);
  std::vector<TypeParam> w = elements(table);
  std::vector<float> h = snapshot(state);
  std::set<std::int64_t> touched;
  for (const unsigned seed : {52u, 53u}) {
    const SparseRowGrad grad = random_sparse_grad(kRows, kDim, seed);
    for (std::size_t u = 0; u < grad.rows.extent(0); ++u) {
      const auto row = static_cast<std::size_t>(grad.rows(u));
      touched.insert(grad.rows(u));
      float sum_squares = 0.0f;
      for (std::size_t d = 0; d < kDim; ++d) sum_squares += grad.values(u, d) * grad.values(u, d);
      h[row] += sum_squares / static_cast<float>(kDim);
      const float multiplier = opt.lr / (std::sqrt(h[row]) + opt.eps);
      for (std::size_t d = 0; d < kDim; ++d) {
        TypeParam& value = w[row * kDim + d];
        value = static_cast<TypeParam>(static_cast<float>(value) - multiplier * grad.values(u, d));
      }
    }
    sparse_rowwise_adagrad_step(table, state, grad, opt);
  }
  ASSERT_LT(touched.size(), kRows);  // untouched rows and their state must keep their bits
  EXPECT_TRUE(same_bits(state.data(), h.data(), kRows));
  EXPECT_TRUE(same_bits(table.data(), w.data(), w.size()));
}

/// Tests for the 16-bit element types only.
template <class T>
class HalfTableTypes : public ::testing::Test {};

using HalfTypes = ::testing::Types<Eigen::half, Eigen::bfloat16>;
TYPED_TEST_SUITE(HalfTableTypes, HalfTypes, ElementTypeName);

TYPED_TEST(HalfTableTypes, ForwardConvertsEveryBitPatternAsEigenDoes) {
  // One row holding all 2^16 values of T: zeros, subnormals, normals, infinities and NaNs. The
  // bags {0} and {0, 0} give 0 + x and (0 + x) + x per column, bit for bit the float loop's.
  constexpr std::size_t kPatterns = std::size_t{1} << 16;
  const TableOf<TypeParam> table("table", 1, kPatterns);
  for (std::size_t i = 0; i < kPatterns; ++i)
    table(0, i) = Eigen::numext::bit_cast<TypeParam>(static_cast<std::uint16_t>(i));
  const Bags bags = make_bags({{0}, {0, 0}});
  const std::vector<float> expected = naive_float_forward(table, bags, Pooling::kSum);
  for (const HostIsa isa : available_isas()) {
    const Tensor2 out("out", 2, kPatterns);
    embedding_bag_forward(isa, table, bags.indices, bags.offsets, Pooling::kSum, out);
    EXPECT_TRUE(same_bits(out.data(), expected.data(), expected.size())) << to_string(isa);
  }
}

/// All 2^16 bit patterns of T, in order.
template <class T>
std::vector<T> every_pattern() {
  std::vector<T> values(std::size_t{1} << 16);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = Eigen::numext::bit_cast<T>(static_cast<std::uint16_t>(i));
  return values;
}

/// The fp32 bits of x.
std::uint32_t bits_of(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

TYPED_TEST(HalfTableTypes, ToFloatOfEveryBitPatternEqualsEigen) {
  // Exact for every value; a signalling fp16 NaN may come out of F16C quiet (bit 22 set), the
  // only difference IEEE 754 allows. Converted as 65533 values and then 3, so that the variants'
  // 8-value bodies and their tails both run.
  const std::vector<TypeParam> src = every_pattern<TypeParam>();
  for (const HostIsa isa : available_isas()) {
    std::vector<float> dst(src.size());
    const std::size_t split = src.size() - 3;
    detail::to_float(isa, std::span(src).first(split), std::span(dst).first(split));
    detail::to_float(isa, std::span(src).subspan(split), std::span(dst).subspan(split));
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
      const std::uint32_t expected = bits_of(static_cast<float>(src[i]));
      const bool signalling = std::isnan(dst[i]) && (expected & 0x00400000u) == 0;
      const bool quieted = signalling && std::is_same_v<TypeParam, Eigen::half> &&
                           isa != HostIsa::kBaseline && bits_of(dst[i]) == (expected | 0x00400000u);
      if (bits_of(dst[i]) != expected && !quieted) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0u) << to_string(isa);
  }
}

/// fp32 values that probe T's rounding: for every finite T value v with a finite successor w
/// (in the direction away from zero), v, the midpoint of v and w (a tie), and the fp32 values
/// just below and above that midpoint; fp32 values beyond T's range (overflow) and below it
/// (fp32 subnormals, which bf16 keeps); NaNs with payloads and both signs; and 2^18 random bit
/// patterns (mt19937, seed 60).
template <class T>
std::vector<float> rounding_probes() {
  std::vector<float> probes;
  for (const T value : every_pattern<T>()) {
    const auto bits = Eigen::numext::bit_cast<std::uint16_t>(value);
    const float v = static_cast<float>(value);
    const float w =
        static_cast<float>(Eigen::numext::bit_cast<T>(static_cast<std::uint16_t>(bits + 1)));
    if (!std::isfinite(v) || std::isnan(w) || (bits & 0x7fffu) == 0x7fffu) continue;
    const float mid = static_cast<float>((static_cast<double>(v) + w) / 2);  // exact in fp32
    probes.insert(probes.end(), {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 2 * mid)});
  }
  for (const std::uint32_t bits :
       {0x7f7fffffu, 0x7f800000u, 0x477ff000u, 0x477fefffu, 0x00000001u, 0x007fffffu, 0x80000001u,
        0x7f800001u, 0x7fc00000u, 0x7fbfffffu, 0xffc00001u, 0xff812345u, 0x7fffffffu, 0xffffffffu})
    probes.push_back(std::bit_cast<float>(bits));
  std::mt19937 gen(60);
  for (int i = 0; i < (1 << 18); ++i)
    probes.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(gen())));
  return probes;
}

TYPED_TEST(HalfTableTypes, FromFloatEqualsEigenBitForBitOnRoundingProbes) {
  const std::vector<float> src = rounding_probes<TypeParam>();
  std::vector<TypeParam> expected(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) expected[i] = static_cast<TypeParam>(src[i]);
  for (const HostIsa isa : available_isas()) {
    std::vector<TypeParam> dst(src.size());
    const std::size_t split = src.size() - 5;  // bodies and tails
    detail::from_float(isa, std::span(src).first(split), std::span(dst).first(split));
    detail::from_float(isa, std::span(src).subspan(split), std::span(dst).subspan(split));
    EXPECT_TRUE(same_bits(dst.data(), expected.data(), expected.size())) << to_string(isa);
  }
}

TYPED_TEST(HalfTableTypes, ConversionsRejectSpansOfDifferentLengths) {
  std::vector<TypeParam> half_values(4);
  std::vector<float> floats(3);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        detail::to_float(HostIsa::kBaseline, std::span<const TypeParam>(half_values),
                         std::span(floats));
      },
      "to_float: src has 4 values but dst has 3"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        detail::from_float(HostIsa::kBaseline, std::span<const float>(floats),
                           std::span(half_values));
      },
      "from_float: src has 3 values but dst has 4"));
}

TYPED_TEST(HalfTableTypes, SparseSgdRoundsToNearestTiesToEvenByHand) {
  // u = 2^(1 - digits) is the spacing of T's values just above 1 (2^-10 for fp16, 2^-7 for
  // bf16). 1 + u/2 lies halfway between 1 (even mantissa) and 1 + u: it rounds to 1.
  // 1 + 3u/2 lies halfway between 1 + u (odd) and 1 + 2u: it rounds to 1 + 2u. 1 + 3u/4 is
  // nearest to 1 + u. Truncation would give 1, 1 + u and 1.
  const float u = std::ldexp(1.0f, 1 - std::numeric_limits<TypeParam>::digits);
  const TableOf<TypeParam> table("table", 2, 3);
  Kokkos::deep_copy(table, static_cast<TypeParam>(1.0f));
  SparseRowGrad grad{IndexVector("rows", 1), Tensor2("values", 1, 3)};
  grad.rows(0) = 1;
  grad.values(0, 0) = -0.5f * u;
  grad.values(0, 1) = -1.5f * u;
  grad.values(0, 2) = -0.75f * u;
  sparse_sgd_step(table, grad, 1.0f);
  EXPECT_EQ(static_cast<float>(table(1, 0)), 1.0f);
  EXPECT_EQ(static_cast<float>(table(1, 1)), 1.0f + 2.0f * u);
  EXPECT_EQ(static_cast<float>(table(1, 2)), 1.0f + u);
  for (std::size_t d = 0; d < 3; ++d) EXPECT_EQ(static_cast<float>(table(0, d)), 1.0f);
}

TYPED_TEST(EmbeddingTableTypes, ForwardRejectsVariantsThisCpuCannotRun) {
  const TableOf<TypeParam> table("table", 5, 2);
  const Tensor2 out("out", 1, 2);
  const Bags bags = make_bags({{1}});
  for (const HostIsa isa : {HostIsa::kAvx2, HostIsa::kAvx512}) {
    if (host_isa_available(isa)) continue;
    EXPECT_TRUE(throws_naming<std::invalid_argument>(
        [&] { embedding_bag_forward(isa, table, bags.indices, bags.offsets, Pooling::kSum, out); },
        "embedding_bag_forward: the " + std::string(to_string(isa)) + " variant cannot run here"));
  }
  EXPECT_TRUE(host_isa_available(HostIsa::kBaseline));
  EXPECT_TRUE(host_isa_available(best_host_isa()));
}

TYPED_TEST(EmbeddingTableTypes, RejectsWhatTheFp32OverloadsReject) {
  const TableOf<TypeParam> table("table", 5, 2);
  const Tensor2 wide_out("out", 2, 3);
  const Bags good = make_bags({{1}, {3}});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { embedding_bag_forward(table, good.indices, good.offsets, Pooling::kSum, wide_out); },
      "embedding_bag_forward: out is [2, 3], expected [2, 2]"));
  const Tensor2 out("out", 2, 2);
  const Bags too_big = make_bags({{1, 5}, {3}});
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { embedding_bag_forward(table, too_big.indices, too_big.offsets, Pooling::kSum, out); },
      "embedding_bag_forward: indices[1] = 5 is outside [0, 5)"));
  SparseRowGrad grad{IndexVector("rows", 2), Tensor2("values", 2, 2)};
  grad.rows(0) = 3, grad.rows(1) = 1;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { sparse_sgd_step(table, grad, 0.1f); },
      "sparse_sgd_step: grad.rows[1] = 1 is not greater than grad.rows[0] = 3"));
  grad.rows(1) = 4;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { sparse_rowwise_adagrad_step(table, Vector("state", 4), grad, {}); },
      "sparse_rowwise_adagrad_step: state is [4], expected [5]"));
}

}  // namespace
}  // namespace scaletune::kernels
