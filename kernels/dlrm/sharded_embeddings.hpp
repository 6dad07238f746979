#pragma once
// The embedding layer of the DLRM workload on one rank, sharded by a plan: model-parallel
// shards pool the bags of the whole global batch and trade them with the other ranks in an
// all-to-all(v) (TorchRec's model-parallel to data-parallel exchange, Naumov et al. 2019
// section 4); data-parallel replicas pool this rank's own samples and all-reduce their
// gradients.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/job/job.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/dlrm/rank_layout.hpp"
#include "kernels/dlrm/shard_table.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// One rank's embedding shards and exchange buffers. Call per step, in order: forward,
/// exchange_forward, gather_pooled, scatter_gradients, exchange_backward, backward,
/// all_reduce_replicas, optimizer_step. Pooling is sum (DLRM).
class ShardedEmbeddings {
 public:
  /// Allocates every buffer through `ledger` (which enforces the rank's budget): per shard its
  /// table [rows, cols] in `precision` (ShardTable; initialised by embedding_initial_value), its
  /// pooled/gradient buffer ([global batch, cols] for a model-parallel shard, [local batch, dim]
  /// for a replica), its
  /// rowwise-Adagrad state [rows] when options.embedding_optimizer is rowwise_adagrad, and
  /// for a replica a dense gradient [rows, dim] and its row ids [rows]; the two exchange
  /// buffers [sum of send_counts] and [sum of recv_counts] floats. `layout` must outlive this.
  /// Throws std::bad_alloc (core::MemoryBudgetExceeded past the budget).
  ShardedEmbeddings(const job::DlrmOptions& options, const RankLayout& layout,
                    TablePrecision precision, std::uint64_t seed, detail::BufferLedger& ledger);

  /// Pools every shard's bags and packs the model-parallel results for the exchange (emb_fwd).
  void forward();
  /// The forward all-to-all (all_to_allv unless layout.uniform_exchange). Collective.
  void exchange_forward(core::Communicator& comm);
  /// Writes the pooled embedding of table t for this rank's samples into z[:, 1 + t, :]
  /// (z [local batch, 1 + tables, dim]; z[:, 0, :] is left alone); row-wise partial sums are
  /// added in rank order.
  void gather_pooled(const Tensor3& z);
  /// Takes dz[:, 1 + t, :] (same shape as z) for every table: packs the slices model-parallel
  /// shards need for the backward exchange and keeps the replicas' own.
  void scatter_gradients(const Tensor3& dz);
  /// The backward all-to-all (the forward one with the counts swapped). Collective.
  void exchange_backward(core::Communicator& comm);
  /// Unpacks the received gradients and runs embedding-bag backward for every shard into row-
  /// sparse gradients (emb_bwd; allocates the sparse gradients, as embedding_bag_backward does).
  void backward();
  /// Sums the replicas' dense gradients over the ranks (bucketed all-reduce). Collective.
  void all_reduce_replicas(core::Communicator& comm, double bucket_bytes);
  /// Applies the row-sparse SGD or rowwise Adagrad step to every shard (only touched rows move).
  void optimizer_step();

  /// Number of shards this rank holds (layout.shards order).
  std::size_t shard_count() const { return m_shards.size(); }
  /// Bytes of the row-sparse gradients the latest backward() made (0 before the first).
  std::int64_t sparse_gradient_bytes() const;
  /// Shard i's table, [shard rows, shard cols].
  const ShardTable& shard_table(std::size_t i) const { return m_shards.at(i).table; }

 private:
  struct ShardState {
    ShardTable table;
    Vector adagrad_state;
    Tensor2 pooled;  ///< pooled bags in forward, their gradient in backward
    Tensor2 dense_grad;
    IndexVector all_rows;
    SparseRowGrad grad;
  };

  void init_table(std::size_t i, std::uint64_t seed);
  template <class F>
  void for_each_exchange_block(F&& f);
  void pack_forward();
  void unpack_backward();
  void apply_optimizer(ShardState& state, const SparseRowGrad& grad);

  const job::DlrmOptions& m_options;
  const RankLayout& m_layout;
  std::vector<ShardState> m_shards;
  Vector m_send;  ///< forward send = backward receive
  Vector m_recv;  ///< forward receive = backward send
};

}  // namespace scaletune::kernels
