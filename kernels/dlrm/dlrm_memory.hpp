#pragma once
// Memory one rank of a DLRM configuration needs, computed from its layout before anything big
// is allocated, so a plan that does not fit is recorded as oom without trying.

#include <cstdint>
#include <string>

#include "harness/job/job.hpp"
#include "kernels/dlrm/rank_layout.hpp"
#include "kernels/dlrm/shard_table.hpp"

namespace scaletune::kernels {

/// Bytes per part of one rank's DLRM workload (fp32 values, int64 indices).
struct DlrmMemory {
  std::int64_t tables = 0;           ///< shard tables and replicas: rows x cols x 4
  std::int64_t optimizer_state = 0;  ///< rowwise Adagrad: rows x 4 per shard; dense SGD velocity
  std::int64_t embedding_buffers =
      0;                         ///< pooled/gradient buffers, replicas' dense gradients and row ids
  std::int64_t exchange = 0;     ///< all-to-all send and receive buffers
  std::int64_t inputs = 0;       ///< lookups (CSR) of every shard, dense features, labels
  std::int64_t dense_model = 0;  ///< MLP parameters and gradients
  std::int64_t activations = 0;  ///< MLP activations, interaction inputs/outputs and gradients
  /// Row-sparse gradients of every shard after the embedding backward (U x (8 + cols x 4), U
  /// the shard's distinct rows), held until the optimizer step
  std::int64_t sparse_gradients = 0;
  /// Largest embedding-backward sort workspace of one shard (lookups x 16 + (U + 1) x 8),
  /// freed before the next shard's backward
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

/// What rank layout.rank allocates for options and layout with tables stored in `precision`
/// (Dlrm's buffers, one by one).
DlrmMemory estimate_dlrm_memory(const job::DlrmOptions& options, const RankLayout& layout,
                                TablePrecision precision);

}  // namespace scaletune::kernels
