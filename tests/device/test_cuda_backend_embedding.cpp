// The CUDA backend's embedding bags and sparse optimizers against the host backend on the same
// tables and bags: forward (sum and mean, fp32, fp16 and bf16 tables, empty bags: bit for bit),
// backward (the same touched rows, strictly increasing, their summed gradients, the count on the
// device too), then sparse SGD and rowwise Adagrad on the bag's gradient and on a gradient made
// on the host (no device count). Uniform and Zipf-like row ids (hot rows: long sorted runs).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/cuda/embedding_bag.hpp"
#include "tests/device/backend_test_support.hpp"
#include "tests/support/embedding_bags.hpp"

namespace scaletune::kernels::cuda {
namespace {

using kernels::test::BagLists;
using kernels::test::random_bag_lists;
using kernels::test::RowLaw;
using testing::DType;
using testing::Shape;
using testing::TwinTensor;

/// Embedding tables of one storage type (the same on both backends: the host stores 16-bit
/// tables too).
class CudaBackendEmbedding : public testing::BackendPairTest,
                             public ::testing::WithParamInterface<DType> {
 protected:
  DType table_type() const { return GetParam(); }
  /// Tolerance of a table after an update: fp32 math rounded once into the table's type.
  double table_tol() const {
    return table_type() == DType::fp32 ? 1e-6 : testing::tolerance(table_type());
  }

  /// The int64 elements of a tensor of `backend`.
  static std::vector<std::int64_t> int64s(ops::Backend& backend, const ops::Tensor& t) {
    std::vector<std::int64_t> out(std::size_t(t.numel()));
    backend.download(t, std::as_writable_bytes(std::span(out)));
    return out;
  }
  /// The fp32 elements of a tensor of `backend`.
  static std::vector<float> floats(ops::Backend& backend, const ops::Tensor& t) {
    return ops::download_floats(backend, t);
  }

  /// Forward, backward and both sparse optimizers for one table shape, bag list and pooling.
  void check(std::int64_t rows, std::int64_t dim, const BagLists& bags, ops::Pooling mode) {
    const std::int64_t nnz = std::int64_t(bags.indices.size());
    const std::int64_t batch = std::int64_t(bags.bags());
    const std::string what = "rows " + std::to_string(rows) + " dim " + std::to_string(dim) +
                             " bags " + std::to_string(batch) + " nnz " + std::to_string(nnz) +
                             (mode == ops::Pooling::kMean ? " mean" : " sum");
    const auto host_op = host().make_embedding_bag(rows, int(dim), int(batch), nnz, mode);
    const auto cuda_op = cuda().make_embedding_bag(rows, int(dim), int(batch), nnz, mode);
    TwinTensor table = random_twin({rows, dim}, 171, table_type(), -1.0f, 1.0f, table_type());
    TwinTensor indices = int_twin<std::int64_t>({nnz}, bags.indices);
    TwinTensor offsets = int_twin<std::int64_t>({batch + 1}, bags.offsets);
    TwinTensor out = filled_twin({batch, dim}, 7.0f);
    host_op->forward(table.host, indices.host, offsets.host, out.host);
    cuda_op->forward(table.cuda, indices.cuda, offsets.cuda, out.cuda);
    expect_twin_equal(out, "embedding bag forward, " + what);

    TwinTensor grad_out = random_twin({batch, dim}, 172);
    const ops::SparseRows h = host_op->backward(grad_out.host, indices.host, offsets.host);
    const ops::SparseRows c = cuda_op->backward(grad_out.cuda, indices.cuda, offsets.cuda);
    ASSERT_EQ(c.count, h.count) << "touched rows, " << what;
    ASSERT_TRUE(c.count_on_device.defined()) << what;
    std::int32_t device_count = -1;
    cuda().download(c.count_on_device, std::as_writable_bytes(std::span(&device_count, 1)));
    EXPECT_EQ(device_count, c.count) << what;
    EXPECT_EQ(int64s(cuda(), c.rows), int64s(host(), h.rows)) << "touched row ids, " << what;
    testing::expect_close(floats(cuda(), c.values), floats(host(), h.values), 1e-6,
                          "row gradients, " + what);

    host().sparse_sgd(table.host, h, 0.5f);
    cuda().sparse_sgd(table.cuda, c, 0.5f);
    expect_twin_close(table, table_tol(), "sparse sgd, " + what);

    TwinTensor state = random_twin({rows}, 173, DType::fp32, 0.0f, 0.1f);
    const ops::RowwiseAdagradOptions opt{.lr = 0.05f, .eps = 1e-8f};
    host().sparse_rowwise_adagrad(table.host, state.host, h, opt);
    cuda().sparse_rowwise_adagrad(table.cuda, state.cuda, c, opt);
    expect_twin_close(state, 1e-5, "rowwise adagrad state, " + what);
    expect_twin_close(table, table_tol(), "rowwise adagrad table, " + what);
  }
};

TEST_P(CudaBackendEmbedding, BagsMatchHostWithUniformRows) {
  for (const ops::Pooling mode : {ops::Pooling::kSum, ops::Pooling::kMean}) {
    check(1000, 16, random_bag_lists(37, 6, 1000, RowLaw::uniform, 181), mode);
    check(1000, 33, random_bag_lists(300, 20, 1000, RowLaw::uniform, 182), mode);
    check(50, 1, random_bag_lists(1, 9, 50, RowLaw::uniform, 183), mode);  // one bag
  }
}

TEST_P(CudaBackendEmbedding, BagsMatchHostWithHotRows) {
  // Hot rows: runs of one row longer than a tile of 64 sorted lookups.
  for (const ops::Pooling mode : {ops::Pooling::kSum, ops::Pooling::kMean})
    check(5000, 24, random_bag_lists(400, 40, 5000, RowLaw::zipf, 184), mode);
}

TEST_P(CudaBackendEmbedding, SparseOptimizersTakeAGradientMadeOnTheHost) {
  constexpr std::int64_t kRows = 100, kDim = 12, kCount = 7;
  const std::vector<std::int64_t> ids = {0, 3, 4, 17, 50, 98, 99};
  TwinTensor row_ids = int_twin<std::int64_t>({kCount}, ids);
  TwinTensor values = random_twin({kCount, kDim}, 191);
  TwinTensor table = random_twin({kRows, kDim}, 192, table_type(), -1.0f, 1.0f, table_type());
  TwinTensor state = random_twin({kRows}, 193, DType::fp32, 0.0f, 0.1f);
  const ops::SparseRows h{
      .rows = row_ids.host, .values = values.host, .count = kCount, .count_on_device = {}};
  const ops::SparseRows c{
      .rows = row_ids.cuda, .values = values.cuda, .count = kCount, .count_on_device = {}};
  host().sparse_sgd(table.host, h, 0.25f);
  cuda().sparse_sgd(table.cuda, c, 0.25f);
  expect_twin_close(table, table_tol(), "sparse sgd of a host-made gradient");
  const ops::RowwiseAdagradOptions opt{};
  host().sparse_rowwise_adagrad(table.host, state.host, h, opt);
  cuda().sparse_rowwise_adagrad(table.cuda, state.cuda, c, opt);
  expect_twin_close(state, 1e-5, "rowwise adagrad state of a host-made gradient");
  expect_twin_close(table, table_tol(), "rowwise adagrad table of a host-made gradient");
}

TEST_P(CudaBackendEmbedding, ABadRowIdSetsTheBackendsFlag) {
  auto& backend = dynamic_cast<CudaBackend&>(cuda());
  const ops::Tensor flag(backend.bad_label_flag(), DType::int32, {1});
  EXPECT_EQ(ops::download_ints(backend, flag)[0], 0) << "zeroed when the backend is made";
  const auto op = cuda().make_embedding_bag(10, 4, 2, 3, ops::Pooling::kSum);
  const std::vector<std::int64_t> ids = {0, 10, 3}, offsets = {0, 2, 3};  // row 10 of 10
  TwinTensor indices = int_twin<std::int64_t>({3}, ids);
  TwinTensor bounds = int_twin<std::int64_t>({3}, offsets);
  TwinTensor table = random_twin({10, 4}, 194, table_type(), -1.0f, 1.0f, table_type());
  TwinTensor out = filled_twin({2, 4}, 7.0f);
  op->forward(table.cuda, indices.cuda, bounds.cuda, out.cuda);
  EXPECT_NE(ops::download_ints(backend, flag)[0] & kEmbeddingBadIndex, 0);
}

INSTANTIATE_TEST_SUITE_P(Tables, CudaBackendEmbedding,
                         ::testing::ValuesIn(testing::kActivationTypes), testing::type_param_name);

}  // namespace
}  // namespace scaletune::kernels::cuda
