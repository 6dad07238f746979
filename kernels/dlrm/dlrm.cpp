#include "kernels/dlrm/dlrm.hpp"

#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <variant>

#include "harness/core/gradient_reducer.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/rank_backend.hpp"

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
  std::int64_t global_batch = 0;
  for (const int b : per_rank_batch) global_batch += b;
  core::check_memory_budget(lookup_generation_bytes(options, plan, global_batch, ctx.comm->rank()),
                            ctx.memory_budget_bytes,
                            "sharding " + plan.name + ": the lookups of a global batch of " +
                                std::to_string(global_batch) + " samples, before the model");
  return make_rank_layout(options, plan, per_rank_batch, ctx.comm->rank(), ctx.seed);
}

void check_estimate(const DlrmMemory& estimate, const RankLayout& layout,
                    std::int64_t budget_bytes) {
  if (budget_bytes <= 0 || estimate.total() <= budget_bytes) return;
  throw core::MemoryBudgetExceeded("sharding " + layout.plan.name + " needs " +
                                   estimate.describe() + ", more than the rank's " +
                                   core::format_bytes(budget_bytes));
}

/// What `sharding = "auto"` chose (none for another scheme): sharding_chosen (the candidate's
/// name), sharding_candidates (per candidate, fastest first, joined by "; ": "NAME step=S
/// embedding=E", S the composed step and E the estimate of its plan-dependent part, in ms; no
/// step= for a candidate that was not composed) and sharding_choice (why).
std::vector<std::pair<std::string, std::string>> choice_attributes(
    const job::DlrmSharding& sharding) {
  if (!sharding.choice || !sharding.choice->error.empty()) return {};
  std::string candidates;
  char cell[96];
  for (const job::ShardingCandidate& c : sharding.choice->candidates) {
    if (c.step_s > 0)
      std::snprintf(cell, sizeof cell, " step=%.4g embedding=%.4g", 1e3 * c.step_s,
                    1e3 * c.embedding_s);
    else
      std::snprintf(cell, sizeof cell, " embedding=%.4g", 1e3 * c.embedding_s);
    candidates += (candidates.empty() ? "" : "; ") + c.name + cell;
  }
  return {{"sharding_chosen", sharding.choice->chosen},
          {"sharding_candidates", candidates},
          {"sharding_choice", sharding.choice->reason}};
}

}  // namespace

Dlrm::Dlrm(const job::DlrmOptions& options, const job::Config& config, const core::RankContext& ctx)
    : m_options(options),
      m_ctx(ctx),
      m_layout(layout_for(options, std::get<job::DlrmSharding>(config.sharding),
                          config.per_rank_batch, ctx)),
      m_backend(make_backend(ctx)),
      m_table_dtype(table_dtype(config.precision)),
      m_compute(compute_dtype(*m_backend, config.precision)),
      m_estimate(estimate_dlrm_memory(options, m_layout, m_table_dtype, m_compute)) {
  check_estimate(m_estimate, m_layout, ctx.memory_budget_bytes);
  m_ledger = std::make_unique<ops::MemoryLedger>(*m_backend, ctx.memory_budget_bytes);
  m_embeddings =
      std::make_unique<ShardedEmbeddings>(m_options, m_layout, m_table_dtype, ctx.seed, *m_ledger);
  make_dense_model();
  make_activations();
  m_scaler = std::make_unique<ops::LossScaler>(*m_ledger, m_compute == ops::DType::fp16);
  m_ledger->count("workspace", m_backend->workspace_bytes());
}

Dlrm::~Dlrm() = default;

void Dlrm::make_dense_model() {
  const std::vector<int> bottom = bottom_mlp_widths(m_options);
  const std::vector<int> top = top_mlp_widths(m_options);
  const std::int64_t bottom_params = mlp_parameter_count(bottom);
  const std::int64_t top_params = mlp_parameter_count(top);
  m_params =
      std::make_unique<detail::ParameterArena>(*m_ledger, bottom_params + top_params, m_compute);
  if (ops::holds_values(*m_backend)) initialise_dense_model(bottom, top);
  const auto windows = [](const detail::ParamWindow& w) {
    return MlpParameters{
        .values = w.value, .master = w.master, .grads = w.master_grad, .offset = w.offset};
  };
  const int batch = m_ctx.per_rank_batch;
  m_bottom = std::make_unique<Mlp>(bottom, true, windows(m_params->take({bottom_params})),
                                   *m_ledger, batch);
  m_top =
      std::make_unique<Mlp>(top, false, windows(m_params->take({top_params})), *m_ledger, batch);
  m_params->require_all_taken();
  const ops::Tensor& grads = m_params->grads();
  m_reducer = std::make_unique<core::GradientReducer>(*m_ctx.comm, grads.as<float>(),
                                                      static_cast<std::size_t>(grads.numel()),
                                                      m_ctx.bucket_bytes, m_ctx.overlap);
  m_gradients_ready = [this](std::int64_t first_final) {
    m_reducer->ready_from(static_cast<std::size_t>(first_final));
  };
}

void Dlrm::initialise_dense_model(const std::vector<int>& bottom, const std::vector<int>& top) {
  const std::int64_t bottom_params = mlp_parameter_count(bottom);
  std::vector<float> initial(static_cast<std::size_t>(m_params->count()));
  const std::span<float> all(initial);
  init_mlp_parameters(bottom, m_ctx.seed + 1, all.first(static_cast<std::size_t>(bottom_params)));
  init_mlp_parameters(top, m_ctx.seed + 2, all.subspan(static_cast<std::size_t>(bottom_params)));
  ops::upload_floats(*m_backend, m_params->values(), initial);
  if (m_compute != ops::DType::fp32)
    m_backend->copy(m_params->values(), m_params->compute_values());
}

void Dlrm::upload_dense_batch() {
  const auto batch = static_cast<std::size_t>(m_ctx.per_rank_batch);
  Tensor2 dense("dense_features", batch, static_cast<std::size_t>(m_options.dense_features));
  Vector labels("labels", batch);
  fill_dense_batch(m_ctx.seed, m_layout.batch_start[static_cast<std::size_t>(m_layout.rank)], dense,
                   labels);
  ops::upload_floats(*m_backend, m_dense, {dense.data(), dense.size()});
  ops::upload_floats(*m_backend, m_labels, {labels.data(), labels.size()});
}

void Dlrm::make_activations() {
  const std::int64_t batch = m_ctx.per_rank_batch;
  const std::int64_t features = static_cast<std::int64_t>(m_options.tables.size()) + 1;
  const std::int64_t dim = m_options.tables.front().dim;
  const std::int64_t inter = top_mlp_input_width(m_options);
  const bool mixed = m_compute != ops::DType::fp32;
  ops::MemoryLedger& l = *m_ledger;
  m_dense = l.make("dlrm_dense_features", m_compute, {batch, m_options.dense_features});
  m_labels = l.make("dlrm_labels", ops::DType::fp32, {batch});
  if (ops::holds_values(*m_backend)) upload_dense_batch();
  m_z = l.make("dlrm_interaction_in", ops::DType::fp32, {batch, features, dim});
  m_dz = l.make("dlrm_interaction_in_grad", ops::DType::fp32, {batch, features, dim});
  m_inter = l.make("dlrm_interaction_out", ops::DType::fp32, {batch, inter});
  m_dinter = l.make("dlrm_interaction_out_grad", ops::DType::fp32, {batch, inter});
  m_dbottom = l.make("dlrm_bottom_out_grad", ops::DType::fp32, {batch, dim});
  m_dlogits = l.make("dlrm_logits_grad", m_compute, {batch, 1});
  m_loss = l.make("dlrm_loss", ops::DType::fp64, {1});
  if (!mixed) {
    m_inter16 = m_inter;
    m_dinter16 = m_dinter;
    m_dbottom16 = m_dbottom;
    return;
  }
  m_bottom32 = l.make("dlrm_bottom_out", ops::DType::fp32, {batch, dim});
  m_inter16 = l.make("dlrm_interaction_out16", m_compute, {batch, inter});
  m_dinter16 = l.make("dlrm_interaction_out_grad16", m_compute, {batch, inter});
  m_dbottom16 = l.make("dlrm_bottom_out_grad16", m_compute, {batch, dim});
}

std::vector<std::string> Dlrm::phase_names() const {
  return {"emb_fwd", "wait",         "alltoall_fwd", "mlp_fwd",   "interaction",
          "mlp_bwd", "alltoall_bwd", "emb_bwd",      "allreduce", "optimizer"};
}

ops::Tensor Dlrm::in_compute_type(const ops::Tensor& fp32, const ops::Tensor& compute) {
  if (fp32.data() != compute.data()) m_backend->copy(fp32, compute);
  return compute;
}

ops::Tensor Dlrm::as_fp32(const ops::Tensor& src, const ops::Tensor& fp32) {
  if (src.dtype() == ops::DType::fp32) return src;
  m_backend->copy(src, fp32);
  return fp32;
}

void Dlrm::forward_dense(core::PhaseTimer& timer) {
  const ops::Tensor bottom_out = as_fp32(m_bottom->forward(m_dense), m_bottom32);
  timer.mark(kMlpFwd);
  const std::int64_t batch = m_z.dim(0), dim = m_z.dim(2);
  const ops::Tensor zm = m_z.reshaped({batch, m_z.dim(1) * dim});
  m_backend->fill(m_z, 0.0f);
  m_backend->copy_columns(bottom_out, 0, zm, 0, dim, false);
  m_embeddings->gather_pooled(m_z);
  m_backend->interaction_forward(m_z, m_inter);
  timer.mark(kInteraction);
  m_logits = m_top->forward(in_compute_type(m_inter, m_inter16));
  const float scale = 1.0f / static_cast<float>(m_layout.global_batch());
  m_backend->fill(m_loss, 0.0f);
  m_backend->bce_with_logits(m_logits, m_labels, scale, m_scaler->grad_scale(), m_dlogits, m_loss);
  timer.mark(kMlpFwd);
}

// Under loss scaling every gradient below the loss is S times the true one: the dense ones are
// unscaled by the optimizer, the embeddings' here, once the bottom MLP has its share of dz.
void Dlrm::backward_dense(core::PhaseTimer& timer) {
  m_top->backward(m_dlogits, m_dinter16, m_gradients_ready);
  timer.mark(kMlpBwd);
  m_backend->interaction_backward(m_z, as_fp32(m_dinter16, m_dinter), m_dz);
  const std::int64_t batch = m_dz.dim(0), dim = m_dz.dim(2);
  m_backend->copy_columns(m_dz.reshaped({batch, m_dz.dim(1) * dim}), 0, m_dbottom, 0, dim, false);
  if (m_scaler->enabled()) {
    m_backend->scale(m_dz, 1.0f / m_scaler->grad_scale());
    m_scaler->check(m_dz);
  }
  timer.mark(kInteraction);
  m_bottom->backward(in_compute_type(m_dbottom, m_dbottom16), ops::Tensor(), m_gradients_ready);
  timer.mark(kMlpBwd);
}

void Dlrm::optimizer_step() {
  m_scaler->check(m_params->grads());
  m_scaler->agree(*m_ctx.comm);
  const ops::SgdOptions sgd{
      .lr = static_cast<float>(m_options.learning_rate), .momentum = 0.0f, .weight_decay = 0.0f};
  const ops::Tensor& working = m_params->compute_values();
  m_backend->sgd_momentum(
      m_params->values(), m_params->grads(), m_params->velocity(), sgd,
      m_scaler->master_update(working.dtype() == ops::DType::fp32 ? ops::Tensor() : working));
  if (!m_scaler->end_step()) m_embeddings->optimizer_step();
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
  m_reducer->finish();
  m_embeddings->all_reduce_replicas(comm, m_ctx.bucket_bytes);
  timer.mark(kAllreduce);
  optimizer_step();
  timer.mark(kOptimizer);
}

double Dlrm::params() const {
  double rows_x_dim = 0;
  for (const job::EmbeddingTableSpec& table : m_options.tables)
    rows_x_dim += static_cast<double>(table.rows) * table.dim;
  return static_cast<double>(m_params->count()) + rows_x_dim;
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
  return m_ledger->bytes() + m_estimate.backward_workspace;
}

std::vector<std::pair<std::string, double>> Dlrm::attributes() const {
  double rows = 0, pooling = 0;
  for (const job::EmbeddingTableSpec& table : m_options.tables) {
    rows += static_cast<double>(table.rows);
    pooling += table.pooling;
  }
  const auto tables = static_cast<double>(m_options.tables.size());
  std::vector<std::pair<std::string, double>> attrs = {
      {"tables", tables},
      {"embedding_dim", m_options.tables.front().dim},
      {"total_rows", rows},
      {"dense_params", static_cast<double>(m_params->count())},
      {"mean_pooling", pooling / tables},
      {"memory_estimate", static_cast<double>(m_estimate.total())}};
  if (m_scaler->enabled())
    attrs.emplace_back("skipped_steps", static_cast<double>(m_scaler->skipped_steps()));
  return attrs;
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
    s.bytes_touched = local.stats.lookups * local.shard.cols() *
                      static_cast<std::int64_t>(core::dtype_bytes(m_table_dtype));
    s.reuse_histogram = local.stats.reuse;
  }
  return stats;
}

std::vector<float> Dlrm::dense_parameters() const {
  return ops::download_floats(*m_backend, m_params->values());
}

std::vector<float> Dlrm::dense_gradients() const {
  return ops::download_floats(*m_backend, m_params->grads());
}

std::vector<float> Dlrm::logits() const {
  return ops::download_floats(*m_backend, m_logits);
}

double Dlrm::last_loss() const {
  return ops::download_scalar(*m_backend, m_loss);
}

void register_dlrm(core::WorkloadRegistry& registry) {
  registry.add(
      "dlrm",
      [](const job::WorkloadSpec& spec, const job::Config& config,
         const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
        return std::make_unique<Dlrm>(spec.dlrm, config, ctx);
      },
      [](const job::WorkloadSpec& spec, const job::Config& config) {
        const auto& sharding = std::get<job::DlrmSharding>(config.sharding);
        std::vector<std::pair<std::string, std::string>> attrs = choice_attributes(sharding);
        const ShardingPlan plan = make_sharding_plan(sharding, spec.dlrm, config.ranks);
        attrs.emplace_back("plan", describe_plan(plan, spec.dlrm));
        return attrs;
      });
}

}  // namespace scaletune::kernels
