// HostBackend's DLRM ops: embedding bags over fp32, fp16 and bf16 tables (forward against the
// naive pooling loop in fp32 in index order, backward against kernels::embedding_bag_backward),
// the sparse optimizers for the three table types against the host steps (and the fp32 formulas),
// and the dot interaction against naive loops.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/host/sparse_optimizer.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using ops::Pooling;
using test::all_near;
using test::converted;
using test::doubles;
using test::tensor_of;
using test::throws_naming;
using test::uniform_floats;

constexpr std::size_t kRows = 6, kDim = 3;

/// Three bags, rows repeating within and across them, the second empty.
struct Bags {
  std::vector<std::int64_t> indices = {4, 1, 4, 0, 4, 5};
  std::vector<std::int64_t> offsets = {0, 3, 3, 6};
  std::int64_t count() const { return std::int64_t(offsets.size()) - 1; }
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
void expect_forward_pools_in_index_order(Pooling mode) {
  HostBackend backend;
  Bags bags;
  std::vector<T> table = converted<T>(uniform_floats(kRows * kDim, 1));
  const auto bag_count = std::size_t(bags.count());
  std::vector<float> out(bag_count * kDim, -1.0f);
  const auto op = backend.make_embedding_bag(kRows, kDim, int(bags.count()), 6, mode);
  op->forward(tensor_of(table, {kRows, kDim}), tensor_of(bags.indices, {6}),
              tensor_of(bags.offsets, {bags.count() + 1}), tensor_of(out, {bags.count(), kDim}));
  std::vector<float> want(out.size());
  for (std::size_t b = 0; b < bag_count; ++b)
    for (std::size_t d = 0; d < kDim; ++d) {
      float sum = 0.0f;
      for (auto i = std::size_t(bags.offsets[b]); i < std::size_t(bags.offsets[b + 1]); ++i)
        sum += static_cast<float>(table[std::size_t(bags.indices[i]) * kDim + d]);
      const auto length = float(bags.offsets[b + 1] - bags.offsets[b]);
      if (mode == Pooling::kMean && length > 0) sum *= 1.0f / length;
      want[b * kDim + d] = sum;
    }
  EXPECT_EQ(out, want);
}

TEST(HostBackendEmbedding, BagForwardOverEachTableType) {
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
    expect_forward_pools_in_index_order<float>(mode);
    expect_forward_pools_in_index_order<Eigen::half>(mode);
    expect_forward_pools_in_index_order<Eigen::bfloat16>(mode);
  }
}

TEST(HostBackendEmbedding, BagBackwardEqualsTheHostSparseGradient) {
  HostBackend backend;
  Bags bags;
  std::vector<float> grad_out = uniform_floats(std::size_t(bags.count()) * kDim, 2);
  for (const Pooling mode : {Pooling::kSum, Pooling::kMean}) {
    const auto op = backend.make_embedding_bag(kRows, kDim, int(bags.count()), 10, mode);
    EXPECT_EQ(op->workspace_bytes(),
              10 * std::int64_t(sizeof(std::int64_t) + kDim * sizeof(float)));
    const ops::SparseRows got =
        op->backward(tensor_of(grad_out, {bags.count(), kDim}), tensor_of(bags.indices, {6}),
                     tensor_of(bags.offsets, {bags.count() + 1}));
    const SparseRowGrad want = embedding_bag_backward(
        Tensor2(grad_out.data(), std::size_t(bags.count()), kDim),
        IndexVector(bags.indices.data(), 6), IndexVector(bags.offsets.data(), 4), mode, kRows);
    ASSERT_EQ(got.count, 4);  // rows 0, 1, 4, 5
    ASSERT_EQ(got.count, std::int64_t(want.rows.extent(0)));
    EXPECT_EQ(got.rows.describe(), "[4] int64");
    EXPECT_EQ(got.values.describe(), "[4, 3] fp32");
    for (std::size_t u = 0; u < std::size_t(got.count); ++u) {
      EXPECT_EQ(got.rows.as<std::int64_t>()[u], want.rows(u));
      for (std::size_t d = 0; d < kDim; ++d)
        EXPECT_EQ(got.values.as<float>()[u * kDim + d], want.values(u, d));
    }
  }
}

// A row-wise shard whose rows no bag looks up: its gradient is [0, D] and updates nothing; a
// shard of no rows at all pools empty bags to zero.
TEST(HostBackendEmbedding, BagsThatTouchNoRowGiveAnEmptyGradientTheOptimizersTake) {
  HostBackend backend;
  std::vector<float> table = uniform_floats(kRows * kDim, 3);
  const std::vector<float> before = table;
  std::vector<float> grad_out = uniform_floats(2 * kDim, 4), out(2 * kDim, 7.0f);
  std::vector<std::int64_t> no_indices, offsets = {0, 0, 0};
  const auto op = backend.make_embedding_bag(kRows, kDim, 2, 0, Pooling::kSum);
  op->forward(tensor_of(table, {kRows, kDim}), tensor_of(no_indices, {0}), tensor_of(offsets, {3}),
              tensor_of(out, {2, kDim}));
  EXPECT_EQ(out, std::vector<float>(2 * kDim, 0.0f));
  const ops::SparseRows grad = op->backward(tensor_of(grad_out, {2, kDim}),
                                            tensor_of(no_indices, {0}), tensor_of(offsets, {3}));
  EXPECT_EQ(grad.count, 0);
  EXPECT_EQ(grad.values.describe(), "[0, 3] fp32");
  backend.sparse_sgd(tensor_of(table, {kRows, kDim}), grad, 0.5f);
  std::vector<float> state(kRows, 1.0f);
  backend.sparse_rowwise_adagrad(tensor_of(table, {kRows, kDim}), tensor_of(state, {kRows}), grad,
                                 {.lr = 0.5f, .eps = 1e-8f});
  EXPECT_EQ(table, before);
  std::vector<float> empty_table;
  const auto none = backend.make_embedding_bag(0, kDim, 2, 0, Pooling::kSum);
  none->forward(tensor_of(empty_table, {0, kDim}), tensor_of(no_indices, {0}),
                tensor_of(offsets, {3}), tensor_of(out, {2, kDim}));
  EXPECT_EQ(out, std::vector<float>(2 * kDim, 0.0f));
}

/// The host ops' view of a [kRows, kDim] table of T.
template <class T>
auto host_table(std::vector<T>& v) {
  if constexpr (std::is_same_v<T, float>) return Tensor2(v.data(), kRows, kDim);
  if constexpr (std::is_same_v<T, Eigen::half>) return Fp16Table(v.data(), kRows, kDim);
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) return Bf16Table(v.data(), kRows, kDim);
}

/// A sparse gradient of rows 1, 3 and 4.
struct Gradient {
  std::vector<std::int64_t> rows = {1, 3, 4};
  std::vector<float> values = uniform_floats(3 * kDim, 3);
  ops::SparseRows ops_view() {
    return {tensor_of(rows, {3}), tensor_of(values, {3, kDim}), 3, ops::Tensor()};
  }
  SparseRowGrad host_view() {
    return {IndexVector(rows.data(), 3), Tensor2(values.data(), 3, kDim)};
  }
};

template <class T>
void expect_sparse_steps_equal_host_steps() {
  HostBackend backend;
  Gradient g;
  const std::vector<T> start = converted<T>(uniform_floats(kRows * kDim, 4));
  std::vector<T> table = start, want = start;
  backend.sparse_sgd(tensor_of(table, {kRows, kDim}), g.ops_view(), 0.5f);
  sparse_sgd_step(host_table(want), g.host_view(), 0.5f);
  EXPECT_TRUE(same_bits(table, want));
  EXPECT_FALSE(same_bits(table, start));
  const ops::RowwiseAdagradOptions opt{.lr = 0.1f, .eps = 1e-6f};
  std::vector<float> state(kRows, 0.5f), want_state = state;
  backend.sparse_rowwise_adagrad(tensor_of(table, {kRows, kDim}), tensor_of(state, {kRows}),
                                 g.ops_view(), opt);
  sparse_rowwise_adagrad_step(host_table(want), Vector(want_state.data(), kRows), g.host_view(),
                              opt);
  EXPECT_TRUE(same_bits(table, want));
  EXPECT_EQ(state, want_state);
}

TEST(HostBackendEmbedding, SparseOptimizersOnEachTableType) {
  expect_sparse_steps_equal_host_steps<float>();
  expect_sparse_steps_equal_host_steps<Eigen::half>();
  expect_sparse_steps_equal_host_steps<Eigen::bfloat16>();
}

TEST(HostBackendEmbedding, SparseOptimizersFollowTheirFormulasOnFp32) {
  HostBackend backend;
  Gradient g;
  std::vector<float> table = uniform_floats(kRows * kDim, 5), state(kRows, 0.25f);
  std::vector<double> want = doubles(table), want_state = doubles(state);
  const ops::RowwiseAdagradOptions opt{.lr = 0.1f, .eps = 1e-6f};
  for (std::size_t u = 0; u < 3; ++u) {
    const auto r = std::size_t(g.rows[u]);
    double mean_sq = 0;
    for (std::size_t d = 0; d < kDim; ++d)
      mean_sq += std::pow(g.values[u * kDim + d], 2) / double{kDim};
    want_state[r] += mean_sq;
    for (std::size_t d = 0; d < kDim; ++d)
      want[r * kDim + d] -= 2.0 * g.values[u * kDim + d] +  // sgd, lr 2
                            opt.lr / (std::sqrt(want_state[r]) + opt.eps) * g.values[u * kDim + d];
  }
  backend.sparse_sgd(tensor_of(table, {kRows, kDim}), g.ops_view(), 2.0f);
  backend.sparse_rowwise_adagrad(tensor_of(table, {kRows, kDim}), tensor_of(state, {kRows}),
                                 g.ops_view(), opt);
  EXPECT_TRUE(all_near(doubles(table), want, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(state), want_state, 1e-7, 1e-6));
}

TEST(HostBackendEmbedding, TablesOfOtherTypesAreRefused) {
  HostBackend backend;
  Gradient g;
  std::vector<double> table(kRows * kDim);
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        backend.sparse_sgd(tensor_of(table, {kRows, kDim}), g.ops_view(), 0.1f);
      },
      "sparse_sgd: a table of fp64, expected fp32, fp16 or bf16"));
}

TEST(HostBackendEmbedding, InteractionForwardAndBackward) {
  HostBackend backend;
  constexpr std::size_t n = 2, f = 4, d = 3, width = d + f * (f - 1) / 2;
  std::vector<float> z = uniform_floats(n * f * d, 6), out(n * width);
  std::vector<float> dout = uniform_floats(n * width, 7), dz(z.size(), 9.0f);
  backend.interaction_forward(tensor_of(z, {n, f, d}), tensor_of(out, {n, width}));
  backend.interaction_backward(tensor_of(z, {n, f, d}), tensor_of(dout, {n, width}),
                               tensor_of(dz, {n, f, d}));
  std::vector<double> want(n * width), want_dz(z.size());
  const auto zat = [&](std::size_t s, std::size_t i, std::size_t k) {
    return double{z[(s * f + i) * d + k]};
  };
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t k = 0; k < d; ++k) {
      want[s * width + k] = zat(s, 0, k);
      want_dz[s * f * d + k] = dout[s * width + k];
    }
    std::size_t col = d;
    for (std::size_t i = 1; i < f; ++i)
      for (std::size_t j = 0; j < i; ++j, ++col)
        for (std::size_t k = 0; k < d; ++k) {
          want[s * width + col] += zat(s, i, k) * zat(s, j, k);
          want_dz[(s * f + i) * d + k] += dout[s * width + col] * zat(s, j, k);
          want_dz[(s * f + j) * d + k] += dout[s * width + col] * zat(s, i, k);
        }
  }
  EXPECT_TRUE(all_near(doubles(out), want, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(dz), want_dz, 1e-6, 1e-6));
}

}  // namespace
}  // namespace scaletune::kernels
