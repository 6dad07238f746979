#include "kernels/dlrm/sharded_embeddings.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "harness/core/gradient_allreduce.hpp"
#include "kernels/host/sparse_optimizer.hpp"

namespace scaletune::kernels {
namespace {

std::size_t total(const std::vector<std::size_t>& counts) {
  std::size_t sum = 0;
  for (const std::size_t c : counts) sum += c;
  return sum;
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

void exchange(core::Communicator& comm, const RankLayout& layout, const Vector& send,
              const std::vector<std::size_t>& send_counts, const Vector& recv,
              const std::vector<std::size_t>& recv_counts) {
  if (total(send_counts) == 0 && total(recv_counts) == 0 && layout.uniform_exchange) return;
  if (layout.uniform_exchange)
    comm.all_to_all(send.data(), recv.data(), send_counts.front(), core::DType::fp32);
  else
    comm.all_to_allv(send.data(), send_counts, recv.data(), recv_counts, core::DType::fp32);
}

}  // namespace

ShardedEmbeddings::ShardedEmbeddings(const job::DlrmOptions& options, const RankLayout& layout,
                                     TablePrecision precision, std::uint64_t seed,
                                     detail::BufferLedger& ledger)
    : m_options(options), m_layout(layout) {
  const bool adagrad = options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad;
  for (const LocalShard& local : layout.shards) {
    const auto rows = static_cast<std::size_t>(local.shard.rows());
    const auto cols = static_cast<std::size_t>(local.shard.cols());
    const std::string name = options.tables[local.table].name;
    ShardState state{.table = ShardTable(precision, rows, cols, name + ".weight", ledger),
                     .adagrad_state = {},
                     .pooled = {},
                     .dense_grad = {},
                     .all_rows = {},
                     .grad = {}};
    if (adagrad) state.adagrad_state = ledger.make<Vector>(name + ".adagrad_state", rows);
    const auto bags = local.replica ? static_cast<std::size_t>(layout.local_batch())
                                    : static_cast<std::size_t>(layout.global_batch());
    state.pooled = ledger.make<Tensor2>(name + ".pooled", bags, cols);
    if (local.replica) {
      state.dense_grad = ledger.make<Tensor2>(name + ".grad", rows, cols);
      state.all_rows = ledger.make<IndexVector>(name + ".rows", rows);
      for (std::size_t r = 0; r < rows; ++r) state.all_rows(r) = static_cast<std::int64_t>(r);
    }
    m_shards.push_back(std::move(state));
    init_table(m_shards.size() - 1, seed);
  }
  m_send = ledger.make<Vector>("alltoall_send", total(layout.send_counts));
  m_recv = ledger.make<Vector>("alltoall_recv", total(layout.recv_counts));
}

void ShardedEmbeddings::init_table(std::size_t i, std::uint64_t seed) {
  const LocalShard& local = m_layout.shards[i];
  ShardTable& table = m_shards[i].table;
  const std::int64_t rows = m_options.tables[local.table].rows;
  for (std::size_t r = 0; r < table.rows(); ++r)
    for (std::size_t c = 0; c < table.cols(); ++c)
      table.set(r, c,
                embedding_initial_value(seed, local.table,
                                        local.shard.row_begin + static_cast<std::int64_t>(r),
                                        local.shard.col_begin + static_cast<int>(c), rows));
}

void ShardedEmbeddings::forward() {
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    const LocalShard& local = m_layout.shards[i];
    m_shards[i].table.forward(local.bags.indices, local.bags.offsets, Pooling::kSum,
                              m_shards[i].pooled);
  }
  pack_forward();
}

// The forward send buffer holds, for each peer q in turn and each model-parallel shard in
// table order, the pooled rows of q's samples ([batch(q), cols]: contiguous rows of the shard's
// [global batch, cols] buffer). Calls f(rows, count) for each block in that order.
template <class F>
void ShardedEmbeddings::for_each_exchange_block(F&& f) {
  for (std::size_t q = 0; q < static_cast<std::size_t>(m_layout.ranks); ++q) {
    const auto first = static_cast<std::size_t>(m_layout.batch_start[q]);
    const auto batch = static_cast<std::size_t>(m_layout.per_rank_batch[q]);
    for (std::size_t i = 0; i < m_shards.size(); ++i) {
      if (m_layout.shards[i].replica) continue;
      const Tensor2& rows = m_shards[i].pooled;
      f(&rows(first, 0), batch * rows.extent(1));
    }
  }
}

void ShardedEmbeddings::pack_forward() {
  float* out = m_send.data();
  for_each_exchange_block(
      [&](const float* rows, std::size_t count) { out = std::copy(rows, rows + count, out); });
}

void ShardedEmbeddings::exchange_forward(core::Communicator& comm) {
  exchange(comm, m_layout, m_send, m_layout.send_counts, m_recv, m_layout.recv_counts);
}

void ShardedEmbeddings::gather_pooled(const Tensor3& z) {
  const std::size_t batch = z.extent(0);
  for (std::size_t n = 0; n < batch; ++n)
    for (std::size_t f = 1; f < z.extent(1); ++f)
      for (std::size_t d = 0; d < z.extent(2); ++d) z(n, f, d) = 0.0f;
  const float* in = m_recv.data();
  for (int p = 0; p < m_layout.ranks; ++p)
    for_each_model_parallel_shard(m_layout.plan, p, [&](std::size_t t, const Shard& shard) {
      for (std::size_t n = 0; n < batch; ++n)
        for (int c = 0; c < shard.cols(); ++c)
          z(n, 1 + t, static_cast<std::size_t>(shard.col_begin + c)) += *in++;
    });
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    if (!m_layout.shards[i].replica) continue;
    const Tensor2& pooled = m_shards[i].pooled;
    for (std::size_t n = 0; n < batch; ++n)
      for (std::size_t d = 0; d < pooled.extent(1); ++d)
        z(n, 1 + m_layout.shards[i].table, d) = pooled(n, d);
  }
}

void ShardedEmbeddings::scatter_gradients(const Tensor3& dz) {
  const std::size_t batch = dz.extent(0);
  float* out = m_recv.data();
  for (int p = 0; p < m_layout.ranks; ++p)
    for_each_model_parallel_shard(m_layout.plan, p, [&](std::size_t t, const Shard& shard) {
      for (std::size_t n = 0; n < batch; ++n)
        for (int c = 0; c < shard.cols(); ++c)
          *out++ = dz(n, 1 + t, static_cast<std::size_t>(shard.col_begin + c));
    });
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    if (!m_layout.shards[i].replica) continue;
    const Tensor2& grad = m_shards[i].pooled;
    for (std::size_t n = 0; n < batch; ++n)
      for (std::size_t d = 0; d < grad.extent(1); ++d)
        grad(n, d) = dz(n, 1 + m_layout.shards[i].table, d);
  }
}

void ShardedEmbeddings::exchange_backward(core::Communicator& comm) {
  exchange(comm, m_layout, m_recv, m_layout.recv_counts, m_send, m_layout.send_counts);
}

// The backward receive buffer has the forward send buffer's layout: copy each block back into
// the rows of the shard's [global batch, cols] gradient.
void ShardedEmbeddings::unpack_backward() {
  const float* in = m_send.data();
  for_each_exchange_block([&](float* rows, std::size_t count) {
    std::copy(in, in + count, rows);
    in += count;
  });
}

void ShardedEmbeddings::backward() {
  unpack_backward();
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    const LocalShard& local = m_layout.shards[i];
    ShardState& state = m_shards[i];
    state.grad = embedding_bag_backward(state.pooled, local.bags.indices, local.bags.offsets,
                                        Pooling::kSum, state.table.rows());
    if (!local.replica) continue;
    Kokkos::deep_copy(state.dense_grad, 0.0f);
    for (std::size_t u = 0; u < state.grad.rows.extent(0); ++u)
      for (std::size_t d = 0; d < state.dense_grad.extent(1); ++d)
        state.dense_grad(static_cast<std::size_t>(state.grad.rows(u)), d) = state.grad.values(u, d);
  }
}

void ShardedEmbeddings::all_reduce_replicas(core::Communicator& comm, double bucket_bytes) {
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    if (!m_layout.shards[i].replica) continue;
    const Tensor2& grad = m_shards[i].dense_grad;
    core::bucketed_all_reduce(comm, std::span<float>(grad.data(), grad.size()), bucket_bytes, 1.0f);
  }
}

void ShardedEmbeddings::apply_optimizer(ShardState& state, const SparseRowGrad& grad) {
  const auto lr = static_cast<float>(m_options.learning_rate);
  if (m_options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad)
    state.table.rowwise_adagrad_step(state.adagrad_state, grad, {.lr = lr, .eps = 1e-8f});
  else
    state.table.sgd_step(grad, lr);
}

std::int64_t ShardedEmbeddings::sparse_gradient_bytes() const {
  std::int64_t bytes = 0;
  for (const ShardState& state : m_shards)
    bytes += static_cast<std::int64_t>(state.grad.rows.size() * sizeof(std::int64_t) +
                                       state.grad.values.size() * sizeof(float));
  return bytes;
}

void ShardedEmbeddings::optimizer_step() {
  for (std::size_t i = 0; i < m_shards.size(); ++i) {
    ShardState& state = m_shards[i];
    if (m_layout.shards[i].replica)
      apply_optimizer(state, SparseRowGrad{state.all_rows, state.dense_grad});
    else
      apply_optimizer(state, state.grad);
  }
}

}  // namespace scaletune::kernels
