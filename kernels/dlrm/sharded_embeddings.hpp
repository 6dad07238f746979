#pragma once
// The embedding layer of the DLRM workload on one rank, sharded by a plan: model-parallel
// shards pool the bags of the whole global batch and trade them with the other ranks in an
// all-to-all(v) (TorchRec's model-parallel to data-parallel exchange, Naumov et al. 2019
// section 4); data-parallel replicas pool this rank's own samples and all-reduce their
// gradients. Every buffer is in the memory of the ledger's backend (host or the rank's GPU).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/job/job.hpp"
#include "kernels/dlrm/rank_layout.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels {

/// The element type embedding tables are stored in for a configuration's [sweep] precision:
/// fp32, fp16 or bf16 (looked up and updated in fp32). Throws std::invalid_argument for
/// another type.
ops::DType table_dtype(job::DataType precision);

/// One rank's embedding shards and exchange buffers. Call per step, in order: forward,
/// exchange_forward, gather_pooled, scatter_gradients, exchange_backward, backward,
/// all_reduce_replicas, optimizer_step. Pooling is sum (DLRM).
class ShardedEmbeddings {
 public:
  /// Makes every buffer through `ledger` (which enforces the rank's budget): per shard its
  /// table [rows, cols] of `dtype` (initialised by embedding_initial_value), its lookups (int64
  /// offsets and indices), its pooled/gradient buffer fp32 ([global batch, cols] for a
  /// model-parallel shard, [local batch, dim] for a replica), its rowwise-Adagrad state fp32
  /// [rows] when options.embedding_optimizer is rowwise_adagrad, for a replica a dense gradient
  /// fp32 [rows, dim] and its row ids int64 [rows], and the embedding-bag op, whose workspace
  /// (EmbeddingBagOp::workspace_bytes) it counts; then the two exchange buffers fp32 [sum of
  /// send_counts] and [sum of recv_counts]. `layout` must outlive this. Throws std::bad_alloc
  /// (core::MemoryBudgetExceeded past the budget).
  ShardedEmbeddings(const job::DlrmOptions& options, const RankLayout& layout, ops::DType dtype,
                    std::uint64_t seed, ops::MemoryLedger& ledger);
  ShardedEmbeddings(const ShardedEmbeddings&) = delete;
  ShardedEmbeddings& operator=(const ShardedEmbeddings&) = delete;

  /// Pools every shard's bags and packs the model-parallel results for the exchange (emb_fwd).
  void forward();
  /// The forward all-to-all (all_to_allv unless layout.uniform_exchange). Collective.
  void exchange_forward(core::Communicator& comm);
  /// Writes the pooled embedding of table t for this rank's samples into z[:, 1 + t, :]
  /// (z fp32 [local batch, 1 + tables, dim]; z[:, 0, :] is left alone); row-wise partial sums
  /// are added in rank order.
  void gather_pooled(const ops::Tensor& z);
  /// Takes dz[:, 1 + t, :] (same shape as z) for every table: packs the slices model-parallel
  /// shards need for the backward exchange and keeps the replicas' own.
  void scatter_gradients(const ops::Tensor& dz);
  /// The backward all-to-all (the forward one with the counts swapped). Collective.
  void exchange_backward(core::Communicator& comm);
  /// Unpacks the received gradients and runs embedding-bag backward for every shard into row-
  /// sparse gradients (emb_bwd); a replica's are scattered into its dense gradient.
  void backward();
  /// Sums the replicas' dense gradients over the ranks (buckets of bucket_bytes, last first).
  /// Collective.
  void all_reduce_replicas(core::Communicator& comm, double bucket_bytes);
  /// Applies the row-sparse SGD or rowwise Adagrad step to every shard (only touched rows move;
  /// a replica's every row, with its all-reduced gradient).
  void optimizer_step();

  /// Number of shards this rank holds (layout.shards order).
  std::size_t shard_count() const { return m_shards.size(); }
  /// Shard i's table, [shard rows, shard cols] of the table type, in the backend's memory.
  const ops::Tensor& shard_table(std::size_t i) const { return m_shards.at(i).table; }
  /// Shard i's table values as host floats, row-major (synchronous).
  std::vector<float> shard_values(std::size_t i) const;

 private:
  struct ShardState {
    ops::Tensor table;          ///< [rows, cols], the table type
    ops::Tensor adagrad_state;  ///< fp32 [rows], or "none"
    ops::Tensor pooled;         ///< fp32: pooled bags in forward, their gradient in backward
    ops::Tensor indices;        ///< int64 [lookups]
    ops::Tensor offsets;        ///< int64 [bags + 1]
    ops::Tensor dense_grad;     ///< replicas: fp32 [rows, cols]
    ops::Tensor all_rows;       ///< replicas: int64 [rows], 0..rows-1
    std::unique_ptr<ops::EmbeddingBagOp> bag;
    ops::SparseRows grad;  ///< the latest backward's
  };

  void init_table(std::size_t i, std::uint64_t seed);
  template <class F>
  void for_each_exchange_block(F&& f);
  template <class F>
  void for_each_received_block(F&& f);
  void apply_optimizer(ShardState& state, const ops::SparseRows& grad);

  const job::DlrmOptions& m_options;
  const RankLayout& m_layout;
  ops::Backend& m_backend;
  std::vector<ShardState> m_shards;
  ops::Tensor m_send;  ///< forward send = backward receive, fp32
  ops::Tensor m_recv;  ///< forward receive = backward send, fp32
};

}  // namespace scaletune::kernels
