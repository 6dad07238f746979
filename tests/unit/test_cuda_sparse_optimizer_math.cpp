// The per-element bodies of the device sparse optimizer steps (kernels/cuda/detail/
// sparse_optimizer_math.hpp), run on the host the way the kernels run them (a row's squares
// added in column order, every value descended and rounded to the table's type), against
// kernels/host/sparse_optimizer.hpp on the same tables and gradients: tables and Adagrad state
// must come out bit for bit equal, for fp32, fp16 and bf16 tables, dims that are not multiples
// of a vector width and rows with gradients large enough that 16-bit rounding matters.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/sparse_optimizer_math.hpp"
#include "kernels/host/sparse_optimizer.hpp"
#include "tests/support/embedding_bags.hpp"

namespace scaletune::kernels::cuda::detail {
namespace {

template <class T>
using HostTable = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// The raw bytes of a host view, for bit-exact comparisons.
template <class View>
std::vector<unsigned char> bytes_of(const View& v) {
  std::vector<unsigned char> bytes(v.size() * sizeof(typename View::value_type));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

/// A sparse gradient over every third row of a table of `rows` rows, values in [-3, 3).
SparseRowGrad random_grad(std::size_t rows, std::size_t dim, unsigned seed) {
  std::vector<std::int64_t> ids;
  for (std::size_t r = 1; r < rows; r += 3) ids.push_back(static_cast<std::int64_t>(r));
  SparseRowGrad grad{test::index_vector(ids, "rows"), Tensor2("values", ids.size(), dim)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  for (std::size_t i = 0; i < grad.values.size(); ++i) grad.values.data()[i] = uniform(gen);
  return grad;
}

template <class T>
HostTable<T> random_table(std::size_t rows, std::size_t dim, unsigned seed) {
  HostTable<T> table("table", rows, dim);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < table.size(); ++i) table.data()[i] = static_cast<T>(uniform(gen));
  return table;
}

/// A deep copy of `table` whose elements are D (float, Fp16, Bf16) with the same bits.
template <class D, class T>
std::vector<D> device_copy(const HostTable<T>& table) {
  static_assert(sizeof(D) == sizeof(T));
  std::vector<D> copy(table.size());
  std::memcpy(copy.data(), table.data(), table.size() * sizeof(T));
  return copy;
}

/// The SGD kernel's work for every touched row and column.
template <class D>
int device_sgd(std::vector<D>& table, std::int64_t rows, std::int64_t dim,
               const SparseRowGrad& grad, float lr, float unscale) {
  int errors = 0;
  for (std::int64_t u = 0; u < static_cast<std::int64_t>(grad.rows.extent(0)); ++u) {
    const int e = check_update_row(grad.rows.data(), u, rows);
    errors |= e;
    if (e != 0) continue;
    for (std::int64_t d = 0; d < dim; ++d) {
      D& w = table[static_cast<std::size_t>(grad.rows(u) * dim + d)];
      const float g = unscaled_gradient(grad.values(u, d), unscale);
      w = from_float<D>(descend(to_float(w), g, lr));
    }
  }
  return errors;
}

/// The rowwise-Adagrad kernel's work: squares in column order, state, then the row.
template <class D>
void device_adagrad(std::vector<D>& table, std::vector<float>& state, std::int64_t dim,
                    const SparseRowGrad& grad, const RowwiseAdagradOptions& opt) {
  for (std::size_t u = 0; u < grad.rows.extent(0); ++u) {
    const auto row = static_cast<std::size_t>(grad.rows(u));
    float sum_squares = 0.0f;
    for (std::int64_t d = 0; d < dim; ++d)
      sum_squares = add_square(sum_squares, unscaled_gradient(grad.values(u, d), 1.0f));
    state[row] = rowwise_adagrad_state(state[row], sum_squares, dim);
    const float step = rowwise_adagrad_step_size(opt.lr, state[row], opt.eps);
    for (std::int64_t d = 0; d < dim; ++d) {
      D& w = table[row * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)];
      w = from_float<D>(descend(to_float(w), unscaled_gradient(grad.values(u, d), 1.0f), step));
    }
  }
}

template <class T, class D>
void expect_sgd_equal(std::size_t dim) {
  const std::size_t rows = 29;
  HostTable<T> table = random_table<T>(rows, dim, 3);
  std::vector<D> device = device_copy<D>(table);
  const SparseRowGrad grad = random_grad(rows, dim, 4);
  EXPECT_EQ(device_sgd(device, rows, static_cast<std::int64_t>(dim), grad, 0.37f, 1.0f), 0);
  sparse_sgd_step(table, grad, 0.37f);
  std::vector<unsigned char> got(device.size() * sizeof(D));
  std::memcpy(got.data(), device.data(), got.size());
  EXPECT_EQ(got, bytes_of(table)) << "dim " << dim;
}

template <class T, class D>
void expect_adagrad_equal(std::size_t dim) {
  const std::size_t rows = 31;
  HostTable<T> table = random_table<T>(rows, dim, 5);
  std::vector<D> device = device_copy<D>(table);
  Vector state("state", rows);
  std::mt19937 gen(6);
  std::uniform_real_distribution<float> uniform(0.0f, 2.0f);
  for (std::size_t r = 0; r < rows; ++r) state(r) = uniform(gen);
  std::vector<float> device_state(state.data(), state.data() + rows);
  const SparseRowGrad grad = random_grad(rows, dim, 7);
  const RowwiseAdagradOptions opt{0.2f, 1e-8f};
  device_adagrad(device, device_state, static_cast<std::int64_t>(dim), grad, opt);
  sparse_rowwise_adagrad_step(table, state, grad, opt);
  std::vector<unsigned char> got(device.size() * sizeof(D));
  std::memcpy(got.data(), device.data(), got.size());
  EXPECT_EQ(got, bytes_of(table)) << "dim " << dim;
  std::vector<unsigned char> got_state(rows * sizeof(float));
  std::memcpy(got_state.data(), device_state.data(), got_state.size());
  EXPECT_EQ(got_state, bytes_of(state)) << "dim " << dim;
}

class SparseOptimizerMath : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SparseOptimizerMath, SgdEqualsHostBitForBit) {
  expect_sgd_equal<float, float>(GetParam());
  expect_sgd_equal<Eigen::half, Fp16>(GetParam());
  expect_sgd_equal<Eigen::bfloat16, Bf16>(GetParam());
}

TEST_P(SparseOptimizerMath, RowwiseAdagradEqualsHostBitForBit) {
  expect_adagrad_equal<float, float>(GetParam());
  expect_adagrad_equal<Eigen::half, Fp16>(GetParam());
  expect_adagrad_equal<Eigen::bfloat16, Bf16>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Dims, SparseOptimizerMath, ::testing::Values(1, 5, 8, 33, 128, 257));

TEST(SparseOptimizerMath, UnscaleMultipliesTheGradientFirst) {
  EXPECT_EQ(unscaled_gradient(3.0f, 1.0f), 3.0f);
  EXPECT_EQ(unscaled_gradient(1024.0f, 1.0f / 512.0f), 2.0f);
  EXPECT_EQ(descend(1.0f, unscaled_gradient(4096.0f, 1.0f / 4096.0f), 0.5f), 0.5f);
}

TEST(SparseOptimizerMath, RowsOutOfRangeOrUnorderedAreRejected) {
  const std::vector<std::int64_t> rows{2, 5, 5, 3, 9, -1};
  EXPECT_EQ(check_update_row(rows.data(), 0, 9), 0);
  EXPECT_EQ(check_update_row(rows.data(), 1, 9), 0);
  EXPECT_EQ(check_update_row(rows.data(), 2, 9), kErrorRowsUnordered);
  EXPECT_EQ(check_update_row(rows.data(), 3, 9), kErrorRowsUnordered);
  EXPECT_EQ(check_update_row(rows.data(), 4, 9), kErrorRowOutOfRange);
  EXPECT_EQ(check_update_row(rows.data(), 5, 9), kErrorRowOutOfRange);
}

}  // namespace
}  // namespace scaletune::kernels::cuda::detail
