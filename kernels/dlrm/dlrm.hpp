#pragma once
// DLRM-style recommendation workload (Naumov et al., "Deep Learning Recommendation Model for
// Personalization and Recommendation Systems", arXiv:1906.00091, 2019; MLPerf Training's DLRM):
// dense features through a bottom MLP, sum-pooled embedding bags of every table, pairwise
// dot-product interaction, top MLP, binary cross-entropy. The dense part is data-parallel;
// the tables are sharded by a plan (sharding_plan.hpp) and trade pooled embeddings through
// all-to-all(v).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/workload.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "kernels/dlrm/dlrm_memory.hpp"
#include "kernels/dlrm/mlp.hpp"
#include "kernels/dlrm/rank_layout.hpp"
#include "kernels/dlrm/sharded_embeddings.hpp"
#include "kernels/ops/backend.hpp"
#include "kernels/ops/loss_scaler.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::core {
class GradientReducer;
}
namespace scaletune::kernels::detail {
class ParameterArena;
}

namespace scaletune::kernels {

/// One rank's DLRM (registered as workload "dlrm", with a describer that records its plan).
/// Synthetic data (dlrm_inputs.hpp): the same batch every step, identical for a global sample
/// whatever the split and plan. Initial weights depend on the seed only: MLPs by
/// init_mlp_parameters (bottom seeded seed + 1, top seed + 2), tables by embedding_initial_value.
/// Loss: BCE with logits over the global batch, each rank's share scaled by 1 / global_batch, so
/// summed gradients are those of the global mean loss. Dense weights: plain SGD (momentum 0, no
/// weight decay) after a bucketed all-reduce (core::GradientReducer: with ctx.overlap each
/// bucket starts as soon as backward has written it); embeddings: row-sparse SGD or rowwise
/// Adagrad (a column-wise shard keeps its own rowwise Adagrad state over its columns, as FBGEMM's
/// fused optimizer does per shard). Runs on the rank's backend (make_backend: the host, or the
/// rank's GPU): the MLPs compute in compute_dtype(backend, precision) with fp32 master weights,
/// the interaction, the pooled embeddings and their exchange are fp32, the tables are stored in
/// the precision. Under fp16 the loss is scaled dynamically (ops::LossScaler): the embedding
/// gradients are unscaled before the exchange, the ranks agree on an overflow, and a skipped
/// step moves neither the dense weights nor the tables.
class Dlrm final : public core::Workload {
 public:
  /// Makes the plan config.sharding (a job::DlrmSharding) over config.ranks = ctx.comm->size()
  /// ranks with the batch split config.per_rank_batch, tables stored in config.precision (fp32,
  /// fp16, bf16), estimates this rank's memory (estimate_dlrm_memory) and, when it
  /// exceeds ctx.memory_budget_bytes (> 0), throws core::MemoryBudgetExceeded naming the rank, the
  /// plan, the need with its parts and the budget, before allocating the model. Otherwise
  /// allocates and initialises everything. Throws std::invalid_argument on bad options or a
  /// context that does not match per_rank_batch, std::bad_variant_access when config.sharding
  /// is no DlrmSharding, std::bad_alloc when memory runs out.
  Dlrm(const job::DlrmOptions& options, const job::Config& config, const core::RankContext& ctx);
  ~Dlrm() override;
  Dlrm(const Dlrm&) = delete;
  Dlrm& operator=(const Dlrm&) = delete;

  /// {"emb_fwd", "wait", "alltoall_fwd", "mlp_fwd", "interaction", "mlp_bwd", "alltoall_bwd",
  /// "emb_bwd", "allreduce", "optimizer"}. "wait" is a barrier after the lookups: the time a rank
  /// waits for the slowest rank's lookups (the load imbalance of the plan). mlp_fwd covers the
  /// bottom MLP, the top MLP and the loss; mlp_bwd both MLPs' backward; interaction its forward and
  /// backward and the assembly of its inputs.
  std::vector<std::string> phase_names() const override;
  /// One training step (see the class comment). Collective over ctx.comm.
  void step(core::PhaseTimer& timer) override;
  /// Dense parameters plus every table's rows x dim (the whole model, not this rank's share).
  double params() const override;
  /// 3 x 2 x (MLP multiply-adds + interaction dot products' F (F-1) / 2 x dim) + 2 x sum over
  /// tables of pooling x dim (the adds of embedding forward and backward), FLOP per sample.
  double flops_per_sample() const override;
  /// Bytes this rank allocated through its ledger (tables, optimizer state, pooled and exchange
  /// buffers, dense model, MLP activations, lookups, the embedding-bag ops' workspace, the
  /// backend's workspace), plus the largest host backward sort workspace (from the lookups).
  std::int64_t memory_peak_bytes() const override;
  /// tables, embedding_dim, total_rows, dense_params, mean_pooling, memory_estimate (bytes), and
  /// skipped_steps under fp16 loss scaling.
  std::vector<std::pair<std::string, double>> attributes() const override;
  /// index_distribution, embedding_optimizer. (The plan, describe_plan, is recorded by the
  /// describer registered with the workload, so an oom configuration has it too.)
  std::vector<std::pair<std::string, std::string>> text_attributes() const override;
  /// Per table: lookups, bytes touched (lookups x shard cols x bytes per stored value) and reuse
  /// histogram of the
  /// rank's piece of the table.
  std::vector<core::TableRankStats> table_stats() const override;

  /// This rank's layout (plan, shards, exchange counts).
  const RankLayout& layout() const { return m_layout; }
  /// The memory estimate the constructor checked.
  const DlrmMemory& memory_estimate() const { return m_estimate; }
  /// This rank's embedding shards.
  const ShardedEmbeddings& embeddings() const { return *m_embeddings; }
  /// Dense fp32 master parameters, bottom MLP then top MLP (Mlp layout each), downloaded.
  std::vector<float> dense_parameters() const;
  /// Their fp32 gradients of the latest step (all-reduced), same layout, downloaded.
  std::vector<float> dense_gradients() const;
  /// Logits of this rank's samples from the latest step, [local batch], downloaded.
  std::vector<float> logits() const;
  /// This rank's loss share of the latest step (sum over its samples / global batch); waits
  /// for the device.
  double last_loss() const;

 private:
  void make_dense_model();
  /// Draws the bottom and top MLPs' initial weights into the parameters (and working copy).
  void initialise_dense_model(const std::vector<int>& bottom, const std::vector<int>& top);
  void make_activations();
  /// Draws this rank's dense features and labels and uploads them.
  void upload_dense_batch();
  void forward_dense(core::PhaseTimer& timer);
  void backward_dense(core::PhaseTimer& timer);
  void optimizer_step();
  /// `fp32` itself when it is of the compute type, else `compute` after converting into it.
  ops::Tensor in_compute_type(const ops::Tensor& fp32, const ops::Tensor& compute);
  /// `fp32` holding `src`: src itself when it is fp32, else `fp32` after converting into it.
  ops::Tensor as_fp32(const ops::Tensor& src, const ops::Tensor& fp32);

  job::DlrmOptions m_options;
  core::RankContext m_ctx;
  RankLayout m_layout;
  std::unique_ptr<ops::Backend> m_backend;
  ops::DType m_table_dtype, m_compute;
  DlrmMemory m_estimate;
  std::unique_ptr<ops::MemoryLedger> m_ledger;
  std::unique_ptr<ShardedEmbeddings> m_embeddings;
  std::unique_ptr<detail::ParameterArena> m_params;
  std::unique_ptr<Mlp> m_bottom, m_top;
  std::unique_ptr<core::GradientReducer> m_reducer;
  std::unique_ptr<ops::LossScaler> m_scaler;
  GradientsReady m_gradients_ready;
  // Activations, [local batch, ...]: dense features and the loss gradient in the compute type;
  // the interaction's input z [B, F, D], its output and their gradients in fp32; the *16
  // tensors are the compute-type copies (the fp32 ones themselves under fp32; bottom32 is
  // "none" then).
  ops::Tensor m_dense, m_labels, m_loss, m_logits, m_dlogits;
  ops::Tensor m_z, m_dz, m_inter, m_dinter, m_dbottom, m_bottom32;
  ops::Tensor m_inter16, m_dinter16, m_dbottom16;
};

/// Adds kind "dlrm" to `registry` (kernels::register_workloads calls it).
void register_dlrm(core::WorkloadRegistry& registry);

}  // namespace scaletune::kernels
