#include "kernels/dlrm/sharded_embeddings.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/core/gradient_allreduce.hpp"
#include "kernels/ops/transfer.hpp"

namespace scaletune::kernels {
namespace {

/// Values of a table initialised per upload (bounds the host staging memory).
constexpr std::int64_t kInitChunkValues = std::int64_t{1} << 20;

std::int64_t total(const std::vector<std::size_t>& counts) {
  return static_cast<std::int64_t>(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
}

/// Calls f(table index, shard) for every model-parallel shard held by `holder`, in table order.
template <class F>
void for_each_model_parallel_shard(const ShardingPlan& plan, int holder, F&& f) {
  for (std::size_t t = 0; t < plan.tables.size(); ++t) {
    if (plan.tables[t].split == ShardSplit::data_parallel) continue;
    for (const Shard& shard : plan.tables[t].shards)
      if (shard.rank == holder) f(t, shard);
  }
}

void exchange(core::Communicator& comm, const RankLayout& layout, const ops::Tensor& send,
              const std::vector<std::size_t>& send_counts, const ops::Tensor& recv,
              const std::vector<std::size_t>& recv_counts) {
  if (total(send_counts) == 0 && total(recv_counts) == 0 && layout.uniform_exchange) return;
  if (layout.uniform_exchange)
    comm.all_to_all(send.data(), recv.data(), send_counts.front(), core::DType::fp32);
  else
    comm.all_to_allv(send.data(), send_counts, recv.data(), recv_counts, core::DType::fp32);
}

/// host int64 values into a new [values.size()] tensor of the ledger's backend.
ops::Tensor upload_indices(ops::MemoryLedger& ledger, const std::string& label,
                           std::span<const std::int64_t> values) {
  const ops::Tensor t =
      ledger.make(label, ops::DType::int64, {static_cast<std::int64_t>(values.size())});
  ledger.backend().upload(t, std::as_bytes(values));
  return t;
}

std::span<const std::int64_t> host_span(const IndexVector& v) {
  return {v.data(), v.size()};
}

/// z [N, F, D] as the matrix [N, F D] the column copies work on.
ops::Tensor feature_matrix(const ops::Tensor& z) {
  return z.reshaped({z.dim(0), z.dim(1) * z.dim(2)});
}

}  // namespace

ops::DType table_dtype(job::DataType precision) {
  switch (precision) {
    case job::DataType::fp32:
      return ops::DType::fp32;
    case job::DataType::fp16:
      return ops::DType::fp16;
    case job::DataType::bf16:
      return ops::DType::bf16;
    case job::DataType::fp64:
    case job::DataType::int32:
    case job::DataType::int64:
      break;
  }
  throw std::invalid_argument("embedding table precision " +
                              std::string(job::data_type_text(precision)) +
                              "; expected fp32, fp16 or bf16");
}

ShardedEmbeddings::ShardedEmbeddings(const job::DlrmOptions& options, const RankLayout& layout,
                                     ops::DType dtype, std::uint64_t seed,
                                     ops::MemoryLedger& ledger)
    : m_options(options), m_layout(layout), m_backend(ledger.backend()) {
  const bool adagrad = options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad;
  for (const LocalShard& local : layout.shards) {
    const std::int64_t rows = local.shard.rows(), cols = local.shard.cols();
    const std::int64_t bags = local.replica ? layout.local_batch() : layout.global_batch();
    const std::int64_t lookups = static_cast<std::int64_t>(local.bags.indices.size());
    const std::string name = options.tables[local.table].name;
    ShardState state;
    state.table = ledger.make(name + ".weight", dtype, {rows, cols});
    if (adagrad)
      state.adagrad_state = ledger.make(name + ".adagrad_state", ops::DType::fp32, {rows});
    state.pooled = ledger.make(name + ".pooled", ops::DType::fp32, {bags, cols});
    state.indices = upload_indices(ledger, name + ".indices", host_span(local.bags.indices));
    state.offsets = upload_indices(ledger, name + ".offsets", host_span(local.bags.offsets));
    if (local.replica) {
      state.dense_grad = ledger.make(name + ".grad", ops::DType::fp32, {rows, cols});
      std::vector<std::int64_t> ids(static_cast<std::size_t>(rows));
      std::iota(ids.begin(), ids.end(), std::int64_t{0});
      state.all_rows = upload_indices(ledger, name + ".rows", ids);
    }
    state.bag = m_backend.make_embedding_bag(rows, static_cast<int>(cols), static_cast<int>(bags),
                                             lookups, ops::Pooling::kSum);
    ledger.count(name + ".bag_workspace", state.bag->workspace_bytes());
    m_shards.push_back(std::move(state));
    if (ops::holds_values(m_backend)) init_table(m_shards.size() - 1, seed);
  }
  m_send = ledger.make("alltoall_send", ops::DType::fp32, {total(layout.send_counts)});
  m_recv = ledger.make("alltoall_recv", ops::DType::fp32, {total(layout.recv_counts)});
}

void ShardedEmbeddings::init_table(std::size_t i, std::uint64_t seed) {
  const LocalShard& local = m_layout.shards[i];
  const ops::Tensor& table = m_shards[i].table;
  const std::int64_t table_rows = m_options.tables[local.table].rows;
  const std::int64_t rows = table.dim(0), cols = table.dim(1);
  const std::int64_t chunk = std::max<std::int64_t>(1, kInitChunkValues / cols);
  std::vector<float> values;
  for (std::int64_t first = 0; first < rows; first += chunk) {
    const std::int64_t n = std::min(chunk, rows - first);
    values.resize(static_cast<std::size_t>(n * cols));
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        values[static_cast<std::size_t>(r * cols + c)] =
            embedding_initial_value(seed, local.table, local.shard.row_begin + first + r,
                                    local.shard.col_begin + static_cast<int>(c), table_rows);
    ops::upload_floats(m_backend, table.rows(first, n), values);
  }
}

void ShardedEmbeddings::forward() {
  for (ShardState& state : m_shards)
    state.bag->forward(state.table, state.indices, state.offsets, state.pooled);
  for_each_exchange_block(
      [&](const ops::Tensor& rows, const ops::Tensor& block) { m_backend.copy(rows, block); });
}

// The forward send buffer holds, for each peer q in turn and each model-parallel shard in
// table order, the pooled rows of q's samples ([batch(q), cols]: contiguous rows of the shard's
// [global batch, cols] buffer). Calls f(those rows, their block of the send buffer) in order.
template <class F>
void ShardedEmbeddings::for_each_exchange_block(F&& f) {
  std::int64_t at = 0;
  for (std::size_t q = 0; q < static_cast<std::size_t>(m_layout.ranks); ++q) {
    const std::int64_t first = m_layout.batch_start[q];
    const std::int64_t batch = m_layout.per_rank_batch[q];
    for (std::size_t i = 0; i < m_shards.size(); ++i) {
      if (m_layout.shards[i].replica) continue;
      const ops::Tensor& pooled = m_shards[i].pooled;
      const std::int64_t cols = pooled.dim(1);
      f(pooled.rows(first, batch), m_send.window(at, {batch, cols}));
      at += batch * cols;
    }
  }
}

// The forward receive buffer holds, for each peer p in turn and each model-parallel shard p
// holds in table order, that shard's pooled rows of this rank's samples [local batch, cols].
// Calls f(table, shard, its block of the receive buffer) in order.
template <class F>
void ShardedEmbeddings::for_each_received_block(F&& f) {
  const std::int64_t batch = m_layout.local_batch();
  std::int64_t at = 0;
  for (int p = 0; p < m_layout.ranks; ++p)
    for_each_model_parallel_shard(m_layout.plan, p, [&](std::size_t t, const Shard& shard) {
      f(t, shard, m_recv.window(at, {batch, shard.cols()}));
      at += batch * shard.cols();
    });
}

void ShardedEmbeddings::exchange_forward(core::Communicator& comm) {
  exchange(comm, m_layout, m_send, m_layout.send_counts, m_recv, m_layout.recv_counts);
}

void ShardedEmbeddings::gather_pooled(const ops::Tensor& z) {
  const ops::Tensor zm = feature_matrix(z);
  const std::int64_t dim = z.dim(2);
  for_each_received_block([&](std::size_t t, const Shard& shard, const ops::Tensor& block) {
    const auto col = static_cast<std::int64_t>(1 + t) * dim + shard.col_begin;
    m_backend.copy_columns(block, 0, zm, col, shard.cols(), true);
  });
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    if (!m_layout.shards[i].replica) continue;
    const auto col = static_cast<std::int64_t>(1 + m_layout.shards[i].table) * dim;
    m_backend.copy_columns(m_shards[i].pooled, 0, zm, col, dim, false);
  }
}

void ShardedEmbeddings::scatter_gradients(const ops::Tensor& dz) {
  const ops::Tensor dzm = feature_matrix(dz);
  const std::int64_t dim = dz.dim(2);
  for_each_received_block([&](std::size_t t, const Shard& shard, const ops::Tensor& block) {
    const auto col = static_cast<std::int64_t>(1 + t) * dim + shard.col_begin;
    m_backend.copy_columns(dzm, col, block, 0, shard.cols(), false);
  });
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    if (!m_layout.shards[i].replica) continue;
    const auto col = static_cast<std::int64_t>(1 + m_layout.shards[i].table) * dim;
    m_backend.copy_columns(dzm, col, m_shards[i].pooled, 0, dim, false);
  }
}

void ShardedEmbeddings::exchange_backward(core::Communicator& comm) {
  exchange(comm, m_layout, m_recv, m_layout.recv_counts, m_send, m_layout.send_counts);
}

// The backward receive buffer has the forward send buffer's layout: each block goes back into
// the rows of the shard's [global batch, cols] gradient. A replica's row-sparse gradient is
// scattered into its zeroed dense gradient by a row-sparse SGD step with learning rate -1
// (dense[rows(u)] = 0 + values(u), exact in fp32).
void ShardedEmbeddings::backward() {
  for_each_exchange_block(
      [&](const ops::Tensor& rows, const ops::Tensor& block) { m_backend.copy(block, rows); });
  for (ShardState& state : m_shards) {
    state.grad = state.bag->backward(state.pooled, state.indices, state.offsets);
    if (!state.dense_grad.defined()) continue;
    m_backend.fill(state.dense_grad, 0.0f);
    m_backend.sparse_sgd(state.dense_grad, state.grad, -1.0f);
  }
}

void ShardedEmbeddings::all_reduce_replicas(core::Communicator& comm, double bucket_bytes) {
  for (const ShardState& state : m_shards) {
    if (!state.dense_grad.defined()) continue;
    const std::span<float> grad(state.dense_grad.as<float>(),
                                static_cast<std::size_t>(state.dense_grad.numel()));
    core::bucketed_all_reduce(comm, grad, bucket_bytes, 1.0f);
  }
}

void ShardedEmbeddings::apply_optimizer(ShardState& state, const ops::SparseRows& grad) {
  const auto lr = static_cast<float>(m_options.learning_rate);
  if (m_options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad)
    m_backend.sparse_rowwise_adagrad(state.table, state.adagrad_state, grad,
                                     {.lr = lr, .eps = 1e-8f});
  else
    m_backend.sparse_sgd(state.table, grad, lr);
}

void ShardedEmbeddings::optimizer_step() {
  for (ShardState& state : m_shards) {
    if (!state.dense_grad.defined()) {
      apply_optimizer(state, state.grad);
      continue;
    }
    const ops::SparseRows all{.rows = state.all_rows,
                              .values = state.dense_grad,
                              .count = state.dense_grad.dim(0),
                              .count_on_device = {}};
    apply_optimizer(state, all);
  }
}

std::vector<float> ShardedEmbeddings::shard_values(std::size_t i) const {
  return ops::download_floats(m_backend, m_shards.at(i).table);
}

}  // namespace scaletune::kernels
