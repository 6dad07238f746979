#include "kernels/dlrm/dlrm.hpp"

#include <numeric>
#include <stdexcept>
#include <variant>

#include "harness/core/gradient_allreduce.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/host/interaction.hpp"
#include "kernels/host/loss.hpp"
#include "kernels/host/optimizer.hpp"

namespace scaletune::kernels {
namespace {

/// Phase indices, in phase_names() order.
enum Phase : std::size_t {
  kEmbFwd,
  kWait,
  kAlltoallFwd,
  kMlpFwd,
  kInteraction,
  kMlpBwd,
  kAlltoallBwd,
  kEmbBwd,
  kAllreduce,
  kOptimizer
};

void check_context(const core::RankContext& ctx, const std::vector<int>& per_rank_batch) {
  if (ctx.comm == nullptr)
    throw std::invalid_argument("dlrm: the rank context has no communicator");
  const auto rank = static_cast<std::size_t>(ctx.comm->rank());
  if (static_cast<int>(per_rank_batch.size()) != ctx.comm->size() ||
      per_rank_batch[rank] != ctx.per_rank_batch)
    throw std::invalid_argument(
        "dlrm: the batch split has " + std::to_string(per_rank_batch.size()) + " entries for " +
        std::to_string(ctx.comm->size()) + " ranks, or disagrees with the rank's per_rank_batch");
}

RankLayout layout_for(const job::DlrmOptions& options, const job::DlrmSharding& sharding,
                      const std::vector<int>& per_rank_batch, const core::RankContext& ctx) {
  check_context(ctx, per_rank_batch);
  const ShardingPlan plan = make_sharding_plan(sharding, options, ctx.comm->size());
  return make_rank_layout(options, plan, per_rank_batch, ctx.comm->rank(), ctx.seed);
}

void check_estimate(const DlrmMemory& estimate, const RankLayout& layout,
                    std::int64_t budget_bytes) {
  if (budget_bytes <= 0 || estimate.total() <= budget_bytes) return;
  throw core::MemoryBudgetExceeded("sharding " + layout.plan.name + " needs " +
                                   estimate.describe() + ", more than the rank's " +
                                   core::format_bytes(budget_bytes));
}

std::span<float> as_span(const Vector& v) {
  return {v.data(), v.size()};
}

}  // namespace

Dlrm::Dlrm(const job::DlrmOptions& options, const job::Config& config, const core::RankContext& ctx)
    : m_options(options),
      m_ctx(ctx),
      m_layout(layout_for(options, std::get<job::DlrmSharding>(config.sharding),
                          config.per_rank_batch, ctx)),
      m_precision(table_precision(config.precision)),
      m_estimate(estimate_dlrm_memory(options, m_layout, m_precision)),
      m_ledger(ctx.memory_budget_bytes) {
  check_estimate(m_estimate, m_layout, ctx.memory_budget_bytes);
  m_embeddings =
      std::make_unique<ShardedEmbeddings>(m_options, m_layout, m_precision, ctx.seed, m_ledger);
  const std::vector<int> bottom = bottom_mlp_widths(options);
  const std::vector<int> top = top_mlp_widths(options);
  const std::int64_t bottom_params = mlp_parameter_count(bottom);
  const std::int64_t params = bottom_params + mlp_parameter_count(top);
  m_params = m_ledger.make<Vector>("dlrm_dense_params", params);
  m_grads = m_ledger.make<Vector>("dlrm_dense_grads", params);
  m_velocity = m_ledger.make<Vector>("dlrm_dense_velocity", params);
  const std::span<float> all = as_span(m_params), grads = as_span(m_grads);
  init_mlp_parameters(bottom, ctx.seed + 1, all.first(bottom_params));
  init_mlp_parameters(top, ctx.seed + 2, all.subspan(bottom_params));
  const int batch = ctx.per_rank_batch;
  m_bottom = std::make_unique<Mlp>(bottom, true, all.first(bottom_params),
                                   grads.first(bottom_params), batch);
  m_top = std::make_unique<Mlp>(top, false, all.subspan(bottom_params),
                                grads.subspan(bottom_params), batch);
  const auto features = options.tables.size() + 1;
  const auto dim = static_cast<std::size_t>(options.tables.front().dim);
  m_dense = m_ledger.make<Tensor2>("dlrm_dense_features", batch, options.dense_features);
  m_labels = m_ledger.make<Vector>("dlrm_labels", batch);
  fill_dense_batch(ctx.seed, m_layout.batch_start[static_cast<std::size_t>(m_layout.rank)], m_dense,
                   m_labels);
  m_z = m_ledger.make<Tensor3>("dlrm_interaction_in", batch, features, dim);
  m_dz = m_ledger.make<Tensor3>("dlrm_interaction_in_grad", batch, features, dim);
  m_inter = m_ledger.make<Tensor2>("dlrm_interaction_out", batch, top.front());
  m_dinter = m_ledger.make<Tensor2>("dlrm_interaction_out_grad", batch, top.front());
  m_dbottom = m_ledger.make<Tensor2>("dlrm_bottom_out_grad", batch, dim);
  m_dlogits = m_ledger.make<Tensor2>("dlrm_logits_grad", batch, 1);
}

Dlrm::~Dlrm() = default;

std::vector<std::string> Dlrm::phase_names() const {
  return {"emb_fwd", "wait",         "alltoall_fwd", "mlp_fwd",   "interaction",
          "mlp_bwd", "alltoall_bwd", "emb_bwd",      "allreduce", "optimizer"};
}

void Dlrm::forward_dense(core::PhaseTimer& timer) {
  const Tensor2 bottom_out = m_bottom->forward(m_dense);
  timer.mark(kMlpFwd);
  for (std::size_t n = 0; n < m_z.extent(0); ++n)
    for (std::size_t d = 0; d < m_z.extent(2); ++d) m_z(n, 0, d) = bottom_out(n, d);
  m_embeddings->gather_pooled(m_z);
  interaction_forward(m_z, m_inter);
  timer.mark(kInteraction);
  m_logits = m_top->forward(m_inter);
  const float scale = 1.0f / static_cast<float>(m_layout.global_batch());
  m_loss = binary_cross_entropy_with_logits(m_logits, m_labels, scale, m_dlogits);
  timer.mark(kMlpFwd);
}

void Dlrm::backward_dense(core::PhaseTimer& timer) {
  m_top->backward(m_dlogits, m_dinter);
  timer.mark(kMlpBwd);
  interaction_backward(m_z, m_dinter, m_dz);
  for (std::size_t n = 0; n < m_dz.extent(0); ++n)
    for (std::size_t d = 0; d < m_dz.extent(2); ++d) m_dbottom(n, d) = m_dz(n, 0, d);
  timer.mark(kInteraction);
  m_bottom->backward(m_dbottom, Tensor2());
  timer.mark(kMlpBwd);
}

void Dlrm::step(core::PhaseTimer& timer) {
  core::Communicator& comm = *m_ctx.comm;
  m_embeddings->forward();
  timer.mark(kEmbFwd);
  comm.barrier();
  timer.mark(kWait);
  m_embeddings->exchange_forward(comm);
  timer.mark(kAlltoallFwd);
  forward_dense(timer);
  backward_dense(timer);
  m_embeddings->scatter_gradients(m_dz);
  m_embeddings->exchange_backward(comm);
  timer.mark(kAlltoallBwd);
  m_embeddings->backward();
  timer.mark(kEmbBwd);
  core::bucketed_all_reduce(comm, as_span(m_grads), m_ctx.bucket_bytes, 1.0f);
  m_embeddings->all_reduce_replicas(comm, m_ctx.bucket_bytes);
  timer.mark(kAllreduce);
  const SgdOptions sgd{
      .lr = static_cast<float>(m_options.learning_rate), .momentum = 0.0f, .weight_decay = 0.0f};
  sgd_momentum_step(m_params, m_grads, m_velocity, sgd);
  m_embeddings->optimizer_step();
  timer.mark(kOptimizer);
}

double Dlrm::params() const {
  double rows_x_dim = 0;
  for (const job::EmbeddingTableSpec& table : m_options.tables)
    rows_x_dim += static_cast<double>(table.rows) * table.dim;
  return static_cast<double>(m_params.size()) + rows_x_dim;
}

double Dlrm::flops_per_sample() const {
  const double features = static_cast<double>(m_options.tables.size()) + 1.0;
  const double dim = m_options.tables.front().dim;
  const double macs = mlp_macs_per_sample(bottom_mlp_widths(m_options)) +
                      mlp_macs_per_sample(top_mlp_widths(m_options)) +
                      features * (features - 1.0) / 2.0 * dim;
  double embedding_adds = 0.0;
  for (const job::EmbeddingTableSpec& table : m_options.tables)
    embedding_adds += 2.0 * table.pooling * table.dim;
  return 3.0 * 2.0 * macs + embedding_adds;
}

std::int64_t Dlrm::memory_peak_bytes() const {
  std::int64_t lookups = 0;
  for (const LocalShard& local : m_layout.shards)
    lookups += static_cast<std::int64_t>((local.bags.offsets.size() + local.bags.indices.size()) *
                                         sizeof(std::int64_t));
  return m_ledger.bytes() + m_bottom->activation_bytes() + m_top->activation_bytes() + lookups +
         m_embeddings->sparse_gradient_bytes() + m_estimate.backward_workspace;
}

std::vector<std::pair<std::string, double>> Dlrm::attributes() const {
  double rows = 0, pooling = 0;
  for (const job::EmbeddingTableSpec& table : m_options.tables) {
    rows += static_cast<double>(table.rows);
    pooling += table.pooling;
  }
  const auto tables = static_cast<double>(m_options.tables.size());
  return {{"tables", tables},
          {"embedding_dim", m_options.tables.front().dim},
          {"total_rows", rows},
          {"dense_params", static_cast<double>(m_params.size())},
          {"mean_pooling", pooling / tables},
          {"memory_estimate", static_cast<double>(m_estimate.total())}};
}

std::vector<std::pair<std::string, std::string>> Dlrm::text_attributes() const {
  return {{"index_distribution", job::index_distribution_text(m_options.index_distribution)},
          {"embedding_optimizer",
           std::string(job::embedding_optimizer_text(m_options.embedding_optimizer))}};
}

std::vector<core::TableRankStats> Dlrm::table_stats() const {
  std::vector<core::TableRankStats> stats;
  for (const job::EmbeddingTableSpec& table : m_options.tables)
    stats.push_back({.table = table.name});
  for (const LocalShard& local : m_layout.shards) {
    core::TableRankStats& s = stats[local.table];
    s.lookups = local.stats.lookups;
    s.bytes_touched = local.stats.lookups * local.shard.cols() * value_bytes(m_precision);
    s.reuse_histogram = local.stats.reuse;
  }
  return stats;
}

std::span<const float> Dlrm::dense_parameters() const {
  return {m_params.data(), m_params.size()};
}

void register_dlrm(core::WorkloadRegistry& registry) {
  registry.add(
      "dlrm",
      [](const job::WorkloadSpec& spec, const job::Config& config,
         const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
        return std::make_unique<Dlrm>(spec.dlrm, config, ctx);
      },
      [](const job::WorkloadSpec& spec, const job::Config& config) {
        const ShardingPlan plan = make_sharding_plan(std::get<job::DlrmSharding>(config.sharding),
                                                     spec.dlrm, config.ranks);
        return std::vector<std::pair<std::string, std::string>>{
            {"plan", describe_plan(plan, spec.dlrm)}};
      });
}

}  // namespace scaletune::kernels
