// The per-thread bodies of the device embedding-bag kernels (kernels/cuda/detail/
// embedding_bag_math.hpp) run on the host over every (bag, column vector) or (tile, column
// vector) the kernels would, against the host ops of kernels/host/embedding_bag.hpp on the same
// bags: the forward bit for bit for fp32, fp16 and bf16 tables and every vector width; the
// backward through the device's pipeline (lookups marked, sorted stably by row, the unique rows
// taken, tiles walked, crossing runs combined) with the host's rows and, for runs inside one
// tile, the host's values bit for bit (others within fp32 rounding). Bags have empty members,
// repeated ids within and across bags and Zipf-distributed hot rows.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/detail/embedding_bag_math.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/half_table.hpp"
#include "tests/support/embedding_bags.hpp"

namespace scaletune::kernels::cuda::detail {
namespace {

using test::BagLists;
using test::index_vector;
using test::random_bag_lists;
using test::RowLaw;

/// The bits of every float of `v`, for exact comparisons that also tell -0 from +0.
std::vector<std::uint32_t> bits_of(const float* v, std::size_t n) {
  std::vector<std::uint32_t> bits(n);
  std::memcpy(bits.data(), v, n * sizeof(float));
  return bits;
}

/// A host table [rows, dim] of T (float, Eigen::half, Eigen::bfloat16) with values uniform in
/// [-1, 1), and the same bits as the device's element type D (float, Fp16, Bf16).
template <class T, class D>
struct Table {
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host;
  std::vector<D> device;
};

template <class T, class D>
Table<T, D> random_table(std::size_t rows, std::size_t dim, unsigned seed) {
  static_assert(sizeof(T) == sizeof(D));
  Table<T, D> t{Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>("table", rows, dim),
                std::vector<D>(rows * dim)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < rows * dim; ++i) t.host.data()[i] = static_cast<T>(uniform(gen));
  std::memcpy(t.device.data(), t.host.data(), rows * dim * sizeof(T));
  return t;
}

/// out [bags, dim] as the forward kernel computes it: pool_bag_columns for every bag and
/// V-column vector; `errors` collects the returned bits.
template <class D, int V>
std::vector<float> device_forward(const std::vector<D>& table, std::int64_t rows, std::int64_t dim,
                                  const BagLists& bags, bool mean, int& errors) {
  const BagForwardArgs<D> a{table.data(),
                            rows,
                            dim,
                            bags.indices.data(),
                            bags.offsets.data(),
                            static_cast<std::int64_t>(bags.indices.size()),
                            mean};
  std::vector<float> out(bags.bags() * static_cast<std::size_t>(dim));
  errors = 0;
  for (std::size_t b = 0; b < bags.bags(); ++b)
    for (std::int64_t col = 0; col < dim; col += V) {
      float values[V];
      errors |= pool_bag_columns<D, V>(a, static_cast<std::int64_t>(b), col, values);
      std::copy(values, values + V, out.begin() + static_cast<std::ptrdiff_t>(b * dim + col));
    }
  return out;
}

/// The host op's out [bags, dim] for a table of T.
template <class T>
std::vector<float> host_forward(const Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>& t,
                                const BagLists& bags, Pooling mode) {
  Tensor2 out("out", bags.bags(), t.extent(1));
  embedding_bag_forward(t, index_vector(bags.indices, "indices"),
                        index_vector(bags.offsets, "offsets"), mode, out);
  return std::vector<float>(out.data(), out.data() + out.size());
}

/// Forward of one table type against the host for every vector width that fits dim.
template <class T, class D>
void expect_forward_equal(std::size_t dim, Pooling mode, RowLaw law) {
  const std::size_t rows = 40;
  const auto table = random_table<T, D>(rows, dim, 7);
  const BagLists bags = random_bag_lists(23, 9, rows, law, 11);
  const std::vector<float> want = host_forward(table.host, bags, mode);
  const auto check = [&](auto v) {
    constexpr int V = decltype(v)::value;
    if (dim % V != 0 || V * sizeof(D) > 16) return;
    int errors = -1;
    const std::vector<float> got = device_forward<D, V>(
        table.device, rows, static_cast<std::int64_t>(dim), bags, mode == Pooling::kMean, errors);
    EXPECT_EQ(errors, 0);
    EXPECT_EQ(bits_of(got.data(), got.size()), bits_of(want.data(), want.size()))
        << "dim " << dim << ", V " << V;
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
}

class EmbeddingForwardMath : public ::testing::TestWithParam<std::size_t> {};

TEST_P(EmbeddingForwardMath, Fp32TableEqualsHostBitForBit) {
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean})
    for (const RowLaw law : {RowLaw::uniform, RowLaw::zipf})
      expect_forward_equal<float, float>(GetParam(), mode, law);
}

TEST_P(EmbeddingForwardMath, Fp16TableEqualsHostBitForBit) {
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean})
    expect_forward_equal<Eigen::half, Fp16>(GetParam(), mode, RowLaw::zipf);
}

TEST_P(EmbeddingForwardMath, Bf16TableEqualsHostBitForBit) {
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean})
    expect_forward_equal<Eigen::bfloat16, Bf16>(GetParam(), mode, RowLaw::zipf);
}

// Dims of one column, odd, not a multiple of 4 or 8, and a few vectors wide.
INSTANTIATE_TEST_SUITE_P(Dims, EmbeddingForwardMath, ::testing::Values(1, 3, 6, 8, 12, 40, 67));

TEST(EmbeddingForwardMath, BadIdsAreSkippedAndReported) {
  const std::size_t rows = 10, dim = 4;
  const auto table = random_table<float, float>(rows, dim, 3);
  BagLists bad;
  bad.indices = {2, -1, 5, 10, 2};
  bad.offsets = {0, 3, 5};
  BagLists good;  // the same bags without the bad ids: equal sums
  good.indices = {2, 5, 2};
  good.offsets = {0, 2, 3};
  int errors = 0;
  const std::vector<float> got =
      device_forward<float, 4>(table.device, rows, dim, bad, false, errors);
  EXPECT_EQ(errors, kErrorBadIndex);
  const std::vector<float> want = host_forward(table.host, good, Pooling::kSum);
  EXPECT_EQ(bits_of(got.data(), got.size()), bits_of(want.data(), want.size()));
}

TEST(EmbeddingForwardMath, BadOffsetsGiveZeroAndAreReported) {
  const std::vector<float> table(4 * 2, 1.0f);
  BagLists bags;
  bags.indices = {0, 1, 2};
  bags.offsets = {0, 2, 1, 7};  // bag 1 runs backwards, bag 2 ends past nnz
  int errors = 0;
  const std::vector<float> got = device_forward<float, 1>(table, 4, 2, bags, false, errors);
  EXPECT_EQ(errors, kErrorBadOffsets);
  EXPECT_EQ(got, (std::vector<float>{2.0f, 2.0f, 0.0f, 0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(check_bag_offsets(bags.offsets.data(), 3, 3, 0), 0);
  EXPECT_EQ(check_bag_offsets(bags.offsets.data(), 3, 3, 1), kErrorBadOffsets);
  EXPECT_EQ(check_bag_offsets(bags.offsets.data(), 3, 3, 2), kErrorBadOffsets);
}

TEST(EmbeddingBagMath, BagOfPositionSkipsEmptyBags) {
  const std::vector<std::int64_t> offsets{0, 0, 2, 2, 2, 5, 6};  // bags 0, 2, 3 empty
  const std::vector<std::int64_t> want{1, 1, 4, 4, 4, 5};
  for (std::int64_t k = 0; k < 6; ++k)
    EXPECT_EQ(bag_of_position(offsets.data(), 6, k), want[static_cast<std::size_t>(k)]) << k;
}

TEST(EmbeddingBagMath, RowKeyBitsCoverEveryRowId) {
  EXPECT_EQ(row_key_bits(1), 1);
  EXPECT_EQ(row_key_bits(2), 1);
  EXPECT_EQ(row_key_bits(3), 2);
  EXPECT_EQ(row_key_bits(1024), 10);
  EXPECT_EQ(row_key_bits(1025), 11);
  EXPECT_EQ(row_key_bits(std::int64_t{1} << 40), 40);
}

TEST(EmbeddingBagMath, BoundsMatchTheStandardLibrary) {
  const std::vector<std::int64_t> sorted{1, 1, 3, 3, 3, 8};
  for (std::int64_t key = 0; key < 10; ++key) {
    EXPECT_EQ(lower_bound(sorted.data(), 6, key),
              std::lower_bound(sorted.begin(), sorted.end(), key) - sorted.begin());
    EXPECT_EQ(upper_bound(sorted.data(), 6, key),
              std::upper_bound(sorted.begin(), sorted.end(), key) - sorted.begin());
  }
}

/// What the backward's device pipeline produces, run on the host.
struct DeviceBackward {
  std::vector<std::int64_t> rows;
  std::vector<float> values;            ///< [rows, dim]
  std::vector<std::int64_t> run_first;  ///< sorted position of each row's first lookup
  std::vector<std::int64_t> run_end;
  int errors = 0;
};

/// mark_lookup + check_bag_offsets for every lookup and bag, a stable sort by row (what
/// cub::DeviceRadixSort::SortPairs does), the distinct rows (DeviceRunLengthEncode::Encode),
/// then sum_tile_runs for every tile and combine_crossing_run for every boundary.
template <int V>
DeviceBackward device_backward(const std::vector<float>& grad_out, std::int64_t dim,
                               const BagLists& bags, bool mean, std::int64_t num_rows,
                               std::int64_t tile_len) {
  const auto nnz = static_cast<std::int64_t>(bags.indices.size());
  const auto bag_count = static_cast<std::int64_t>(bags.bags());
  DeviceBackward result;
  std::vector<std::int64_t> keys(bags.indices.size());
  std::vector<std::int32_t> bag_of(bags.indices.size());
  for (std::int64_t k = 0; k < nnz; ++k)
    result.errors |= mark_lookup(bags.indices.data(), bags.offsets.data(), bag_count, num_rows, k,
                                 keys[k], bag_of[k]);
  for (std::int64_t b = 0; b < bag_count; ++b)
    result.errors |= check_bag_offsets(bags.offsets.data(), bag_count, nnz, b);
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
  std::vector<std::int64_t> sorted_rows;
  std::vector<std::int32_t> sorted_bags;
  for (const std::size_t k : order) {
    sorted_rows.push_back(keys[k]);
    sorted_bags.push_back(bag_of[k]);
  }
  result.rows = sorted_rows;
  result.rows.erase(std::unique(result.rows.begin(), result.rows.end()), result.rows.end());
  for (const std::int64_t row : result.rows) {
    result.run_first.push_back(lower_bound(sorted_rows.data(), nnz, row));
    result.run_end.push_back(upper_bound(sorted_rows.data(), nnz, row));
  }
  const int num_unique = static_cast<int>(result.rows.size());
  const std::int64_t tiles = backward_tiles(nnz, tile_len);
  result.values.assign(result.rows.size() * static_cast<std::size_t>(dim), -7.0f);
  std::vector<float> partials(static_cast<std::size_t>(2 * tiles * dim), -9.0f);
  const BagBackwardArgs a{sorted_rows.data(),
                          sorted_bags.data(),
                          bags.offsets.data(),
                          grad_out.data(),
                          result.rows.data(),
                          &num_unique,
                          nnz,
                          dim,
                          tile_len,
                          mean,
                          result.values.data(),
                          partials.data()};
  for (std::int64_t t = 0; t < tiles; ++t)
    for (std::int64_t col = 0; col < dim; col += V) sum_tile_runs<V>(a, t, col);
  for (std::int64_t boundary = 1; boundary < tiles; ++boundary)
    for (std::int64_t col = 0; col < dim; col += V) combine_crossing_run<V>(a, boundary, col);
  return result;
}

struct BackwardCase {
  std::size_t dim;
  std::int64_t tile_len;
  RowLaw law;
};

/// "dim5_tile3_zipf", for test names.
std::string case_name(const ::testing::TestParamInfo<BackwardCase>& info) {
  return "dim" + std::to_string(info.param.dim) + "_tile" + std::to_string(info.param.tile_len) +
         (info.param.law == RowLaw::zipf ? "_zipf" : "_uniform");
}

class EmbeddingBackwardMath : public ::testing::TestWithParam<BackwardCase> {};

TEST_P(EmbeddingBackwardMath, PipelineEqualsHostBackward) {
  const auto [dim, tile_len, law] = GetParam();
  const std::size_t rows = 60, bag_count = 37;
  const BagLists bags = random_bag_lists(bag_count, 12, rows, law, 5);
  std::vector<float> grad(bag_count * dim);
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& g : grad) g = uniform(gen);
  Tensor2 grad_host("grad_out", bag_count, dim);
  std::copy(grad.begin(), grad.end(), grad_host.data());

  for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
    const SparseRowGrad want =
        embedding_bag_backward(grad_host, index_vector(bags.indices, "indices"),
                               index_vector(bags.offsets, "offsets"), mode, rows);
    const auto check = [&](auto v) {
      constexpr int V = decltype(v)::value;
      if (dim % V != 0) return;
      const DeviceBackward got = device_backward<V>(grad, static_cast<std::int64_t>(dim), bags,
                                                    mode == Pooling::kMean, rows, tile_len);
      EXPECT_EQ(got.errors, 0);
      ASSERT_EQ(got.rows.size(), want.rows.extent(0));
      std::size_t inside = 0, crossing = 0;
      for (std::size_t u = 0; u < got.rows.size(); ++u) {
        EXPECT_EQ(got.rows[u], want.rows(u));
        const bool one_tile = got.run_first[u] / tile_len == (got.run_end[u] - 1) / tile_len;
        ++(one_tile ? inside : crossing);
        for (std::size_t d = 0; d < dim; ++d) {
          const float g = got.values[u * dim + d], w = want.values(u, d);
          if (one_tile)
            EXPECT_EQ(bits_of(&g, 1), bits_of(&w, 1)) << "row " << got.rows[u] << " col " << d;
          else
            EXPECT_NEAR(g, w, 1e-5f * (1.0f + std::abs(w))) << "row " << got.rows[u];
        }
      }
      if (tile_len < 64) {
        EXPECT_GT(crossing, 0u) << "the case should have runs across tiles";
      }
      EXPECT_GT(inside, 0u);
    };
    check(std::integral_constant<int, 1>{});
    check(std::integral_constant<int, 2>{});
    check(std::integral_constant<int, 4>{});
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EmbeddingBackwardMath,
    ::testing::Values(BackwardCase{1, 1, RowLaw::uniform}, BackwardCase{5, 3, RowLaw::zipf},
                      BackwardCase{8, 4, RowLaw::uniform}, BackwardCase{12, 7, RowLaw::zipf},
                      BackwardCase{64, 64, RowLaw::zipf}, BackwardCase{3, 64, RowLaw::uniform}),
    case_name);

TEST(EmbeddingBackwardMath, HotRowAcrossManyTilesSumsEveryOccurrence) {
  // Row 4 in every bag, 200 lookups of it: its run spans many tiles of 8.
  BagLists bags;
  for (int b = 0; b < 100; ++b) {
    bags.indices.insert(bags.indices.end(), {4, b % 7 == 0 ? 1 : 4, 2});
    bags.offsets.push_back(static_cast<std::int64_t>(bags.indices.size()));
  }
  const std::int64_t dim = 4;
  std::vector<float> grad(100 * dim);
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = 0.25f * static_cast<float>(i % 13);
  const DeviceBackward got = device_backward<4>(grad, dim, bags, false, 10, 8);
  ASSERT_EQ(got.rows, (std::vector<std::int64_t>{1, 2, 4}));
  for (std::int64_t d = 0; d < dim; ++d) {
    double want = 0.0;  // exact: quarters summed stay exact in float
    for (int b = 0; b < 100; ++b) want += grad[b * dim + d] * (b % 7 == 0 ? 1.0 : 2.0);
    EXPECT_EQ(got.values[2 * dim + d], static_cast<float>(want)) << d;
  }
}

TEST(EmbeddingBackwardMath, BadIdsAddNothingAndAreReported) {
  BagLists bags;
  bags.indices = {3, -2, 3, 99};
  bags.offsets = {0, 2, 4};
  const std::vector<float> grad{1.0f, 2.0f};
  const DeviceBackward got = device_backward<1>(grad, 1, bags, false, 10, 64);
  EXPECT_EQ(got.errors, kErrorBadIndex);
  // The bad lookups are keyed to row 0 and add nothing; row 3 gets both bags' gradients.
  ASSERT_EQ(got.rows, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(got.values, (std::vector<float>{0.0f, 3.0f}));
}

}  // namespace
}  // namespace scaletune::kernels::cuda::detail
