#pragma once
// Memory one rank of a DLRM configuration needs, computed from its layout before anything big
// is allocated, so a plan that does not fit is recorded as oom without trying.

#include <cstdint>
#include <string>

#include "harness/job/job.hpp"
#include "kernels/dlrm/rank_layout.hpp"
#include "kernels/ops/tensor.hpp"

namespace scaletune::kernels {

/// Bytes per part of one rank's DLRM workload (int64 indices, fp32 unless said otherwise).
struct DlrmMemory {
  std::int64_t tables = 0;  ///< shard tables and replicas: rows x cols x bytes of the table type
  std::int64_t optimizer_state = 0;  ///< rowwise Adagrad: rows x 4 per shard; dense SGD velocity
  std::int64_t embedding_buffers =
      0;                      ///< pooled/gradient buffers, replicas' dense gradients and row ids
  std::int64_t exchange = 0;  ///< all-to-all send and receive buffers
  std::int64_t inputs = 0;    ///< lookups (CSR) of every shard, dense features, labels
  /// MLP master parameters and gradients, and their compute-type copies under 16 bits
  std::int64_t dense_model = 0;
  /// MLP activations (compute type), interaction inputs/outputs and gradients, the loss
  std::int64_t activations = 0;
  /// Row-sparse gradients of every shard after the embedding backward, at most (the host
  /// embedding bag's workspace: lookups x (8 + cols x 4)), held until the optimizer step
  std::int64_t sparse_gradients = 0;
  /// Largest embedding-backward sort workspace of one shard on the host (lookups x 16 + (U +
  /// 1) x 8, U the shard's distinct rows), freed before the next shard's backward
  std::int64_t backward_workspace = 0;

  /// Sum of every part, bytes.
  std::int64_t total() const;
  /// Every part but the backward workspace: what the rank holds between steps, bytes.
  std::int64_t resident() const;
  /// "9.1 GiB: tables 8 GiB, optimizer state 64 MiB, ..." (parts that are 0 left out).
  std::string describe() const;
};

/// Input width of the top MLP: dim + F (F - 1) / 2 with F = 1 + tables (the interaction's
/// output). Throws std::invalid_argument when options has no tables.
int top_mlp_input_width(const job::DlrmOptions& options);

/// Widths of the bottom MLP: dense_features, then bottom_mlp.
std::vector<int> bottom_mlp_widths(const job::DlrmOptions& options);

/// Widths of the top MLP: top_mlp_input_width, then top_mlp.
std::vector<int> top_mlp_widths(const job::DlrmOptions& options);

/// Bytes rank `rank` needs, at least, to draw the lookups of the plan's tables it holds a shard
/// of for a global batch of `global_batch` samples: make_rank_layout draws a whole table's
/// lookups at a time (about global_batch x pooling row ids and global_batch + 1 offsets, 8 bytes
/// each) before it keeps its shards' slices, so the largest such table. Checked against the
/// budget before the lookups are drawn, since they alone may not fit.
std::int64_t lookup_generation_bytes(const job::DlrmOptions& options, const ShardingPlan& plan,
                                     std::int64_t global_batch, int rank);

/// What rank layout.rank allocates for options and layout with tables of `table_dtype` and
/// MLPs computing in `compute`: Dlrm's buffers, one by one, as the host backend makes them
/// (buffers of 2 MiB and more in whole 2 MiB huge pages, except the MLPs' activations; the
/// ledger counts the bytes asked for, so Dlrm::memory_peak_bytes is at most this). On CUDA the
/// embedding bags' and libraries' workspaces come on top and are checked against the budget
/// when made.
DlrmMemory estimate_dlrm_memory(const job::DlrmOptions& options, const RankLayout& layout,
                                ops::DType table_dtype, ops::DType compute);

}  // namespace scaletune::kernels
