// Device sparse SGD and rowwise Adagrad (kernels/cuda/sparse_optimizer.hpp) against the host
// steps (kernels/host/sparse_optimizer.hpp) on the same tables and row-sparse gradients: tables
// and Adagrad state bit for bit, for fp32, fp16 and bf16 tables and dims that are 1, odd, not a
// multiple of the vector width or longer than a warp's columns many times. Also: a set
// found_nonfinite flag leaves everything alone, unscale undoes a power-of-two loss scale
// exactly, only the first *num_unique rows are applied, and bad rows set the error flag.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/sparse_optimizer.hpp"
#include "kernels/host/sparse_optimizer.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/support/embedding_bags.hpp"

namespace scaletune::kernels::cuda {
namespace {

using core::DType;
using testing::DeviceActivations;
using testing::host_bits;
using testing::rounded;
using testing::uniform_vector;

/// A row-sparse gradient over every other row of `rows`, values in [-3, 3) (times `scale`).
SparseRowGrad random_grad(std::size_t rows, std::size_t dim, float scale) {
  std::vector<std::int64_t> ids;
  for (std::size_t r = 0; r < rows; r += 2) ids.push_back(static_cast<std::int64_t>(r));
  SparseRowGrad grad{kernels::test::index_vector(ids, "rows"), Tensor2("values", ids.size(), dim)};
  const std::vector<float> values = uniform_vector(grad.values.size(), 12);
  for (std::size_t i = 0; i < values.size(); ++i) grad.values.data()[i] = 3.0f * scale * values[i];
  return grad;
}

/// The device copies of a gradient: rows, values and the count U.
struct DeviceGrad {
  explicit DeviceGrad(const SparseRowGrad& g, int count)
      : rows(std::span<const std::int64_t>(g.rows.data(), g.rows.extent(0))),
        values(std::span<const float>(g.values.data(), g.values.size())),
        num_unique(std::span<const int>(std::vector<int>{count})),
        max_unique(static_cast<std::int64_t>(g.rows.extent(0))) {}
  DeviceBuffer<std::int64_t> rows;
  DeviceBuffer<float> values;
  DeviceBuffer<int> num_unique;
  std::int64_t max_unique;
};

DeviceBuffer<int> device_int(int value) {
  return DeviceBuffer<int>(std::span<const int>(std::vector<int>{value}));
}

/// The host op applied to a table of `values` [rows, dim] stored as dtype; returns the table
/// after the step as floats (exact) and, for Adagrad, updates `state`.
template <class Step>
std::vector<float> host_step(const std::vector<float>& values, std::size_t rows, std::size_t dim,
                             DType dtype, const Step& step) {
  const auto run = [&](auto table) {
    using T = typename decltype(table)::value_type;
    for (std::size_t i = 0; i < values.size(); ++i) table.data()[i] = static_cast<T>(values[i]);
    step(table);
    std::vector<float> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(table.data()[i]);
    return out;
  };
  if (dtype == DType::fp32) return run(Tensor2("table", rows, dim));
  if (dtype == DType::fp16) return run(Fp16Table("table", rows, dim));
  return run(Bf16Table("table", rows, dim));
}

/// (table dtype, dim)
class CudaSparseOptimizer : public testing::DeviceTest,
                            public ::testing::WithParamInterface<std::tuple<DType, std::size_t>> {};

TEST_P(CudaSparseOptimizer, SgdEqualsHostBitForBit) {
  const auto [dtype, dim] = GetParam();
  const std::size_t rows = 37;
  const std::vector<float> values = rounded(dtype, uniform_vector(rows * dim, 10));
  const SparseRowGrad grad = random_grad(rows, dim, 1.0f);
  const float lr = 0.3f;
  const std::vector<float> want = host_step(values, rows, dim, dtype, [&](const auto& table) {
    kernels::sparse_sgd_step(table, grad, lr);
  });
  DeviceActivations table(dtype, values);
  const DeviceGrad g(grad, static_cast<int>(grad.rows.extent(0)));
  DeviceBuffer<int> flags = device_int(0);
  sparse_sgd_step(nullptr, rows, static_cast<std::int64_t>(dim), g.max_unique, dtype, table.data(),
                  g.rows.data(), g.values.data(), g.num_unique.data(), lr, 1.0f, nullptr,
                  flags.data());
  EXPECT_EQ(host_bits(DType::fp32, table.to_host()), host_bits(DType::fp32, want));
  EXPECT_EQ(flags.to_host(), std::vector<int>{0});
}

TEST_P(CudaSparseOptimizer, RowwiseAdagradEqualsHostBitForBit) {
  const auto [dtype, dim] = GetParam();
  const std::size_t rows = 41;
  const std::vector<float> values = rounded(dtype, uniform_vector(rows * dim, 13));
  std::vector<float> state0 = uniform_vector(rows, 14);
  for (float& s : state0) s = s * s;  // non-negative
  const SparseRowGrad grad = random_grad(rows, dim, 1.0f);
  const RowwiseAdagradOptions opt{0.05f, 1e-8f};
  Vector state_host("state", rows);
  std::copy(state0.begin(), state0.end(), state_host.data());
  const std::vector<float> want = host_step(values, rows, dim, dtype, [&](const auto& table) {
    kernels::sparse_rowwise_adagrad_step(table, state_host, grad, opt);
  });
  DeviceActivations table(dtype, values);
  DeviceBuffer<float> state{std::span<const float>(state0)};
  const DeviceGrad g(grad, static_cast<int>(grad.rows.extent(0)));
  DeviceBuffer<int> flags = device_int(0);
  // The gradient is scaled by 2^10 on the device and unscaled in the step: the same values.
  std::vector<float> scaled(grad.values.data(), grad.values.data() + grad.values.size());
  for (float& v : scaled) v *= 1024.0f;
  const DeviceBuffer<float> scaled_values{std::span<const float>(scaled)};
  sparse_rowwise_adagrad_step(nullptr, rows, static_cast<std::int64_t>(dim), g.max_unique, dtype,
                              table.data(), state.data(), g.rows.data(), scaled_values.data(),
                              g.num_unique.data(), opt.lr, opt.eps, 1.0f / 1024.0f, nullptr,
                              flags.data());
  EXPECT_EQ(host_bits(DType::fp32, table.to_host()), host_bits(DType::fp32, want));
  EXPECT_EQ(
      host_bits(DType::fp32, state.to_host()),
      host_bits(DType::fp32, std::vector<float>(state_host.data(), state_host.data() + rows)));
  EXPECT_EQ(flags.to_host(), std::vector<int>{0});
}

INSTANTIATE_TEST_SUITE_P(Tables, CudaSparseOptimizer,
                         ::testing::Combine(::testing::Values(DType::fp32, DType::fp16,
                                                              DType::bf16),
                                            ::testing::Values(1, 7, 8, 36, 128, 1000)));

using CudaSparseOptimizerFlags = testing::DeviceTest;

TEST_F(CudaSparseOptimizerFlags, FoundNonfiniteSkipsTheStep) {
  const std::size_t rows = 8, dim = 4;
  const std::vector<float> values = uniform_vector(rows * dim, 1);
  const SparseRowGrad grad = random_grad(rows, dim, 1.0f);
  DeviceActivations table(DType::fp32, values);
  DeviceBuffer<float> state(std::span<const float>(std::vector<float>(rows, 0.5f)));
  const DeviceGrad g(grad, static_cast<int>(grad.rows.extent(0)));
  DeviceBuffer<int> found = device_int(1), flags = device_int(0);
  sparse_sgd_step(nullptr, rows, dim, g.max_unique, DType::fp32, table.data(), g.rows.data(),
                  g.values.data(), g.num_unique.data(), 0.1f, 1.0f, found.data(), flags.data());
  sparse_rowwise_adagrad_step(nullptr, rows, dim, g.max_unique, DType::fp32, table.data(),
                              state.data(), g.rows.data(), g.values.data(), g.num_unique.data(),
                              0.1f, 1e-8f, 1.0f, found.data(), flags.data());
  EXPECT_EQ(host_bits(DType::fp32, table.to_host()), host_bits(DType::fp32, values));
  EXPECT_EQ(state.to_host(), std::vector<float>(rows, 0.5f));
}

TEST_F(CudaSparseOptimizerFlags, OnlyTheFirstNumUniqueRowsAreApplied) {
  const std::size_t rows = 8, dim = 3;
  const std::vector<float> values(rows * dim, 1.0f);
  const SparseRowGrad grad = random_grad(rows, dim, 1.0f);  // rows 0, 2, 4, 6
  DeviceActivations table(DType::fp32, values);
  const DeviceGrad g(grad, 2);
  DeviceBuffer<int> flags = device_int(0);
  sparse_sgd_step(nullptr, rows, dim, g.max_unique, DType::fp32, table.data(), g.rows.data(),
                  g.values.data(), g.num_unique.data(), 1.0f, 1.0f, nullptr, flags.data());
  const std::vector<float> got = table.to_host();
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t d = 0; d < dim; ++d) {
      const bool applied = r == 0 || r == 2;
      const float want = applied ? 1.0f - grad.values(r / 2, d) : 1.0f;
      EXPECT_EQ(got[r * dim + d], want) << r << ", " << d;
    }
}

TEST_F(CudaSparseOptimizerFlags, BadRowsSetTheFlagAndAreSkipped) {
  const std::size_t rows = 4, dim = 2;
  const std::vector<float> values(rows * dim, 1.0f);
  SparseRowGrad grad{kernels::test::index_vector({1, 1, 7}, "rows"), Tensor2("values", 3, dim)};
  Kokkos::deep_copy(grad.values, 1.0f);
  DeviceActivations table(DType::fp32, values);
  const DeviceGrad g(grad, 3);
  DeviceBuffer<int> flags = device_int(0);
  sparse_sgd_step(nullptr, rows, dim, g.max_unique, DType::fp32, table.data(), g.rows.data(),
                  g.values.data(), g.num_unique.data(), 0.5f, 1.0f, nullptr, flags.data());
  EXPECT_EQ(flags.to_host(), std::vector<int>{kEmbeddingBadIndex | kSparseRowsUnordered});
  EXPECT_EQ(table.to_host(), (std::vector<float>{1.0f, 1.0f, 0.5f, 0.5f, 1.0f, 1.0f, 1.0f, 1.0f}));
}

}  // namespace
}  // namespace scaletune::kernels::cuda
