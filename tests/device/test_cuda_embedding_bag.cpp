// Device embedding-bag forward and backward (kernels/cuda/embedding_bag.hpp) against the host ops
// (kernels/host/embedding_bag.hpp) on the same tables and bags: the forward bit for bit (same
// order, same fp32 operations) for fp32, fp16 and bf16 tables, with the 16-bit copy of out
// rounded to nearest even; the backward's rows exactly and values to fp32 accuracy, run twice
// for determinism. Bags have empty members, repeated ids within and across bags and Zipf hot
// rows whose runs cross many tiles; dims of 1, odd, not multiples of the vector width, and 65536
// (many column chunks). Bad ids and offsets set the error flag.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/embedding_bag.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/support/embedding_bags.hpp"

namespace scaletune::kernels::cuda {
namespace {

using core::DType;
using kernels::test::BagLists;
using kernels::test::index_vector;
using kernels::test::random_bag_lists;
using kernels::test::RowLaw;
using testing::DeviceActivations;
using testing::expect_all_close;
using testing::host_bits;
using testing::rounded;
using testing::uniform_vector;

/// Device copies of a batch of bags.
struct DeviceBags {
  explicit DeviceBags(const BagLists& lists)
      : indices(std::span<const std::int64_t>(lists.indices)),
        offsets(std::span<const std::int64_t>(lists.offsets)),
        bags(static_cast<std::int64_t>(lists.bags())),
        nnz(static_cast<std::int64_t>(lists.indices.size())) {}
  DeviceBuffer<std::int64_t> indices;
  DeviceBuffer<std::int64_t> offsets;
  std::int64_t bags;
  std::int64_t nnz;
};

/// A zeroed device int (error flags, counts).
DeviceBuffer<int> device_zero() {
  return DeviceBuffer<int>(std::span<const int>(std::vector<int>{0}));
}

/// The host op's out [bags, dim] for a table of `values` [rows, dim] stored as `dtype` (values
/// already representable in it).
std::vector<float> host_forward(const std::vector<float>& values, std::size_t rows, std::size_t dim,
                                DType dtype, const BagLists& bags, Pooling mode) {
  Tensor2 out("out", bags.bags(), dim);
  const IndexVector indices = index_vector(bags.indices, "indices");
  const IndexVector offsets = index_vector(bags.offsets, "offsets");
  const auto fill_and_run = [&](auto table) {
    using T = typename decltype(table)::value_type;
    for (std::size_t i = 0; i < values.size(); ++i) table.data()[i] = static_cast<T>(values[i]);
    kernels::embedding_bag_forward(table, indices, offsets, mode, out);
  };
  if (dtype == DType::fp32)
    fill_and_run(Tensor2("table", rows, dim));
  else if (dtype == DType::fp16)
    fill_and_run(Fp16Table("table", rows, dim));
  else
    fill_and_run(Bf16Table("table", rows, dim));
  return std::vector<float>(out.data(), out.data() + out.size());
}

/// (table dtype, dim, row law)
class CudaEmbeddingForward
    : public testing::DeviceTest,
      public ::testing::WithParamInterface<std::tuple<DType, std::size_t, RowLaw>> {};

TEST_P(CudaEmbeddingForward, EqualsHostBitForBit) {
  const auto [dtype, dim, law] = GetParam();
  const std::size_t rows = dim > 4096 ? 20 : 300;
  const std::size_t bag_count = dim > 4096 ? 7 : 301;
  const BagLists bags = random_bag_lists(bag_count, dim > 4096 ? 5 : 30, rows, law, 3);
  const std::vector<float> values = rounded(dtype, uniform_vector(rows * dim, 4));
  const DeviceActivations table(dtype, values);
  const DeviceBags device_bags(bags);
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
    const DType out16_dtype = mode == Pooling::kSum ? DType::bf16 : DType::fp16;
    DeviceBuffer<float> out(bag_count * dim);
    DeviceActivations out16(out16_dtype, bag_count * dim, 0.0f);
    DeviceBuffer<int> flags = device_zero();
    embedding_bag_forward(nullptr, device_bags.bags, device_bags.nnz,
                          static_cast<std::int64_t>(rows), static_cast<std::int64_t>(dim), dtype,
                          table.data(), device_bags.indices.data(), device_bags.offsets.data(),
                          mode == Pooling::kSum ? ops::Pooling::kSum : ops::Pooling::kMean, out.data(),
                          out16_dtype, out16.data(), flags.data());
    const std::vector<float> want = host_forward(values, rows, dim, dtype, bags, mode);
    const std::vector<float> got = out.to_host();
    EXPECT_EQ(host_bits(DType::fp32, got), host_bits(DType::fp32, want));
    EXPECT_EQ(out16.bits(), host_bits(out16_dtype, want));
    EXPECT_EQ(flags.to_host(), std::vector<int>{0});
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, CudaEmbeddingForward,
                         ::testing::Combine(::testing::Values(DType::fp32, DType::fp16,
                                                              DType::bf16),
                                            ::testing::Values(1, 3, 8, 67, 128, 65536),
                                            ::testing::Values(RowLaw::uniform, RowLaw::zipf)));

using CudaEmbeddingErrors = testing::DeviceTest;

TEST_F(CudaEmbeddingErrors, BadIdsAndOffsetsSetTheFlagWithoutFaulting) {
  const std::vector<float> values(4 * 2, 1.0f);
  const DeviceActivations table(DType::fp32, values);
  BagLists bad_ids;
  bad_ids.indices = {0, -5, 4, 3};
  bad_ids.offsets = {0, 2, 4};
  const DeviceBags ids(bad_ids);
  DeviceBuffer<float> out(2 * 2);
  DeviceBuffer<int> flags = device_zero();
  embedding_bag_forward(nullptr, 2, 4, 4, 2, DType::fp32, table.data(), ids.indices.data(),
                        ids.offsets.data(), ops::Pooling::kSum, out.data(), DType::fp16, nullptr,
                        flags.data());
  EXPECT_EQ(flags.to_host(), std::vector<int>{kEmbeddingBadIndex});
  EXPECT_EQ(out.to_host(), (std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f}));

  BagLists bad_offsets;
  bad_offsets.indices = {0, 1};
  bad_offsets.offsets = {0, 2, 1};
  const DeviceBags offsets(bad_offsets);
  DeviceBuffer<int> offset_flags = device_zero();
  embedding_bag_forward(nullptr, 2, 2, 4, 2, DType::fp32, table.data(), offsets.indices.data(),
                        offsets.offsets.data(), ops::Pooling::kSum, out.data(), DType::fp16, nullptr,
                        offset_flags.data());
  EXPECT_EQ(offset_flags.to_host(), std::vector<int>{kEmbeddingBadOffsets});
}

/// The device backward's outputs copied to the host.
struct BackwardResult {
  std::vector<std::int64_t> rows;
  std::vector<float> values;
  int errors = 0;
};

BackwardResult device_backward(const std::vector<float>& grad, std::size_t dim,
                               const BagLists& bags, Pooling mode, std::int64_t num_rows) {
  const DeviceBags device_bags(bags);
  const std::int64_t max_unique = embedding_bag_backward_max_unique(device_bags.nnz, num_rows);
  const DeviceBuffer<float> grad_out{std::span<const float>(grad)};
  const std::size_t bytes = embedding_bag_backward_workspace_bytes(device_bags.nnz, num_rows,
                                                                   static_cast<std::int64_t>(dim));
  DeviceBuffer<std::byte> workspace(bytes);
  DeviceBuffer<std::int64_t> rows(static_cast<std::size_t>(max_unique));
  DeviceBuffer<float> values(static_cast<std::size_t>(max_unique) * dim);
  DeviceBuffer<int> num_unique = device_zero();
  DeviceBuffer<int> flags = device_zero();
  embedding_bag_backward(
      nullptr, device_bags.bags, device_bags.nnz, num_rows, static_cast<std::int64_t>(dim),
      grad_out.data(), device_bags.indices.data(), device_bags.offsets.data(),
      mode == Pooling::kSum ? ops::Pooling::kSum : ops::Pooling::kMean, workspace.data(), bytes,
      rows.data(), values.data(), num_unique.data(), flags.data());
  const int touched = read_num_unique(nullptr, num_unique.data());
  BackwardResult result;
  result.rows = rows.to_host();
  result.rows.resize(static_cast<std::size_t>(touched));
  result.values = values.to_host();
  result.values.resize(static_cast<std::size_t>(touched) * dim);
  result.errors = flags.to_host()[0];
  return result;
}

/// (dim, row law)
class CudaEmbeddingBackward
    : public testing::DeviceTest,
      public ::testing::WithParamInterface<std::tuple<std::size_t, RowLaw>> {};

TEST_P(CudaEmbeddingBackward, MatchesHostAndIsDeterministic) {
  const auto [dim, law] = GetParam();
  const std::size_t rows = 500, bag_count = 257;
  const BagLists bags = random_bag_lists(bag_count, 40, rows, law, 8);
  const std::vector<float> grad = uniform_vector(bag_count * dim, 9);
  Tensor2 grad_host("grad_out", bag_count, dim);
  std::copy(grad.begin(), grad.end(), grad_host.data());
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
    const SparseRowGrad want =
        kernels::embedding_bag_backward(grad_host, index_vector(bags.indices, "indices"),
                                        index_vector(bags.offsets, "offsets"), mode, rows);
    const BackwardResult got = device_backward(grad, dim, bags, mode, rows);
    EXPECT_EQ(got.errors, 0);
    EXPECT_EQ(got.rows,
              std::vector<std::int64_t>(want.rows.data(), want.rows.data() + want.rows.extent(0)));
    expect_all_close(
        got.values, std::vector<float>(want.values.data(), want.values.data() + want.values.size()),
        1e-5, "values");
    const BackwardResult again = device_backward(grad, dim, bags, mode, rows);
    EXPECT_EQ(host_bits(DType::fp32, again.values), host_bits(DType::fp32, got.values))
        << "not deterministic";
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, CudaEmbeddingBackward,
                         ::testing::Combine(::testing::Values(1, 5, 64, 130),
                                            ::testing::Values(RowLaw::uniform, RowLaw::zipf)));

using CudaEmbeddingBackwardEdges = testing::DeviceTest;

TEST_F(CudaEmbeddingBackwardEdges, OnlyEmptyBagsTouchNoRow) {
  BagLists bags;
  bags.offsets = {0, 0, 0, 0};
  const BackwardResult got =
      device_backward(std::vector<float>(3 * 4, 1.0f), 4, bags, Pooling::kMean, 10);
  EXPECT_TRUE(got.rows.empty());
  EXPECT_EQ(got.errors, 0);
}

TEST_F(CudaEmbeddingBackwardEdges, BadIdsAddNothingAndSetTheFlag) {
  BagLists bags;
  bags.indices = {3, -2, 3, 99};
  bags.offsets = {0, 2, 4};
  const BackwardResult got = device_backward({1.0f, 2.0f}, 1, bags, Pooling::kSum, 10);
  EXPECT_EQ(got.errors, kEmbeddingBadIndex);
  EXPECT_EQ(got.rows, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(got.values, (std::vector<float>{0.0f, 3.0f}));
}

TEST_F(CudaEmbeddingBackwardEdges, TooSmallAWorkspaceIsRejected) {
  DeviceBuffer<std::int64_t> indices(
      std::span<const std::int64_t>(std::vector<std::int64_t>{1, 2}));
  DeviceBuffer<std::int64_t> offsets(
      std::span<const std::int64_t>(std::vector<std::int64_t>{0, 2}));
  DeviceBuffer<float> grad(4), values(8);
  DeviceBuffer<std::int64_t> rows(2);
  DeviceBuffer<int> count = device_zero(), flags = device_zero();
  DeviceBuffer<std::byte> workspace(256);
  try {
    embedding_bag_backward(nullptr, 1, 2, 4, 4, grad.data(), indices.data(), offsets.data(),
                           ops::Pooling::kSum, workspace.data(), 256, rows.data(), values.data(),
                           count.data(), flags.data());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
