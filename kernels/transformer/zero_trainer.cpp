#include "kernels/transformer/zero_trainer.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/ops/transfer.hpp"
#include "kernels/transformer/gpt_init.hpp"
#include "kernels/transformer/token_batch.hpp"

namespace scaletune::kernels {

using core::DType;
using core::ReduceOp;

/// Every buffer of the trainer, made through its ledger; "none" where the stage needs none.
struct ZeroTrainer::Buffers {
  ops::Tensor params;           ///< fp32 [N] whole parameters (replicated, zero1, zero2)
  ops::Tensor params16;         ///< [N] their 16-bit working copy (16-bit activations)
  ops::Tensor grads;            ///< fp32 [N] whole gradients (replicated, zero1)
  ops::Tensor param_shard;      ///< fp32 [n] (zero3)
  ops::Tensor grad_shard;       ///< fp32 [n] reduced gradients of the shard (zero1, zero2, zero3)
  ops::Tensor adam_m, adam_v;   ///< fp32 [N] (replicated) or [n]
  ops::Tensor unit_params;      ///< fp32 [E + Lb + F] gather buffers: embeddings, a block, ln_f
  ops::Tensor unit_params16;    ///< [E + Lb + F] their 16-bit working copy (zero3, 16 bits)
  ops::Tensor unit_grads;       ///< fp32 [E + Lb + F] gradients of the same units (zero2, zero3)
  ops::Tensor scratch;          ///< fp32 [c] reduce-scatterv receive buffer (zero2, zero3)
  ops::Tensor tokens, targets;  ///< int32 [m S] the current micro-batch
};

namespace {

std::size_t largest_part(const std::vector<std::vector<std::size_t>>& unit_counts, int rank) {
  std::size_t largest = 0;
  for (const auto& counts : unit_counts)
    largest = std::max(largest, counts[static_cast<std::size_t>(rank)]);
  return largest;
}

std::int64_t signed_count(std::size_t n) {
  return static_cast<std::int64_t>(n);
}

/// `count` elements of `t` from `offset` as a flat window.
ops::Tensor part(const ops::Tensor& t, std::size_t offset, std::size_t count) {
  return t.window(signed_count(offset), {signed_count(count)});
}

}  // namespace

ZeroTrainer::ZeroTrainer(ops::Backend& backend, const GptShape& shape, const TransformerPlan& plan,
                         int rank, core::Communicator& comm, std::uint64_t seed,
                         const AdamOptions& adam, const TrainerOptions& options)
    : m_ops(backend),
      m_ledger(backend, options.memory_budget_bytes),
      m_scaler(m_ledger, shape.dtype == ops::DType::fp16),
      m_shape(shape),
      m_plan(plan),
      m_rank(rank),
      m_comm(comm),
      m_seed(seed),
      m_adam(adam) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= plan.ranks.size())
    throw std::invalid_argument("ZeroTrainer: rank " + std::to_string(rank) +
                                " is not in the plan");
  const core::RankPlan& me = plan.ranks[static_cast<std::size_t>(rank)];
  m_shape.max_micro_batch = me.micro_batch;
  for (int r = 0; r < rank; ++r) m_sample_offset += plan.ranks[static_cast<std::size_t>(r)].batch;
  int global_batch = 0;
  for (const core::RankPlan& r : plan.ranks) global_batch += r.batch;
  m_loss_scale = 1.0f / (static_cast<float>(global_batch) * static_cast<float>(m_shape.seq_len));
  std::vector<double> fractions;
  for (const core::RankPlan& r : plan.ranks) fractions.push_back(r.shard_fraction);
  const auto total = static_cast<std::size_t>(GptModel::parameter_count(m_shape));
  m_layout = shard_layout(total, fractions);
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(m_shape);
  m_unit_begin.assign(1, 0);
  for (const std::int64_t u : units) {
    const std::size_t begin = m_unit_begin.back();
    m_unit_counts.push_back(unit_counts(m_layout, begin, begin + static_cast<std::size_t>(u)));
    m_unit_begin.push_back(begin + static_cast<std::size_t>(u));
  }
  allocate_buffers();
  initialise_parameters();
  m_model = std::make_unique<GptModel>(m_shape, model_buffers(), m_ledger);
  m_ledger.count("workspace", m_ops.workspace_bytes());
  const Buffers& b = *m_buffers;
  if (plan.sharding.stage == ZeroStage::replicated)
    m_reducer = std::make_unique<core::GradientReducer>(comm, b.grads.as<float>(), total,
                                                        options.bucket_bytes, options.overlap);
  m_host_tokens.resize(static_cast<std::size_t>(me.batch) *
                       static_cast<std::size_t>(shape.seq_len));
  m_host_targets.resize(m_host_tokens.size());
  fill_token_batch(seed, m_sample_offset, shape.seq_len, shape.vocab, m_host_tokens,
                   m_host_targets);
}

ZeroTrainer::~ZeroTrainer() = default;

void ZeroTrainer::allocate_buffers() {
  const ZeroStage stage = m_plan.sharding.stage;
  const std::size_t total = m_unit_begin.back();
  const std::size_t shard = m_layout.counts[static_cast<std::size_t>(m_rank)];
  const std::size_t units = unit_size(0) + unit_size(1) + unit_size(m_unit_counts.size() - 1);
  const bool whole_params = stage != ZeroStage::zero3;
  const bool whole_grads = stage == ZeroStage::replicated || stage == ZeroStage::zero1;
  const bool sharded = stage != ZeroStage::replicated;
  const bool half = m_shape.dtype != ops::DType::fp32;
  const std::int64_t tokens = std::int64_t{m_shape.max_micro_batch} * m_shape.seq_len;
  const auto make = [&](const char* label, std::size_t n, bool needed,
                        ops::DType dtype = ops::DType::fp32) {
    return needed ? m_ledger.make(label, dtype, {signed_count(n)}) : ops::Tensor();
  };
  m_buffers = std::make_unique<Buffers>();
  Buffers& b = *m_buffers;
  b.params = make("params", total, whole_params);
  b.params16 = make("params16", total, whole_params && half, m_shape.dtype);
  b.grads = make("grads", total, whole_grads);
  b.param_shard = make("param_shard", shard, !whole_params);
  b.grad_shard = make("grad_shard", shard, sharded);
  b.adam_m = make("adam_m", sharded ? shard : total, true);
  b.adam_v = make("adam_v", sharded ? shard : total, true);
  b.unit_params = make("unit_params", units, !whole_params);
  b.unit_params16 = make("unit_params16", units, !whole_params && half, m_shape.dtype);
  b.unit_grads = make("unit_grads", units, !whole_grads);
  b.scratch = make("scratch", largest_part(m_unit_counts, m_rank), !whole_grads);
  b.tokens = m_ledger.make("tokens", ops::DType::int32, {tokens});
  b.targets = m_ledger.make("targets", ops::DType::int32, {tokens});
}

std::size_t ZeroTrainer::unit_size(std::size_t unit) const {
  return m_unit_begin[unit + 1] - m_unit_begin[unit];
}

// Offset of `unit` in unit_params / unit_grads: embeddings, then the one block, then ln_f.
std::size_t ZeroTrainer::unit_slot(std::size_t unit) const {
  if (unit == 0) return 0;
  return unit + 1 < m_unit_counts.size() ? unit_size(0) : unit_size(0) + unit_size(1);
}

ops::Tensor ZeroTrainer::unit_view(const ops::Tensor& buffer, std::size_t unit) const {
  return part(buffer, unit_slot(unit), unit_size(unit));
}

// Draws every unit on the host (GptInitializer) and uploads what this rank keeps of it: the
// whole unit, or (zero3) its part of the shard.
void ZeroTrainer::initialise_parameters() {
  if (!ops::holds_values(m_ops)) return;
  const Buffers& b = *m_buffers;
  GptInitializer init(m_shape, m_seed);
  const std::size_t first = m_layout.offsets[static_cast<std::size_t>(m_rank)];
  const std::size_t count = m_layout.counts[static_cast<std::size_t>(m_rank)];
  std::vector<float> unit;
  for (std::size_t u = 0; u < m_unit_counts.size(); ++u) {
    unit.resize(unit_size(u));
    init.fill_next_unit(unit);
    if (m_plan.sharding.stage != ZeroStage::zero3) {
      ops::upload_floats(m_ops, part(b.params, m_unit_begin[u], unit.size()), unit);
      continue;
    }
    const std::size_t lo = std::max(first, m_unit_begin[u]);
    const std::size_t hi = std::min(first + count, m_unit_begin[u + 1]);
    if (hi > lo)
      ops::upload_floats(m_ops, part(b.param_shard, lo - first, hi - lo),
                         std::span<const float>(unit).subspan(lo - m_unit_begin[u], hi - lo));
  }
  if (b.params16.defined()) m_ops.copy(b.params, b.params16);
}

GptBuffers ZeroTrainer::model_buffers() const {
  const Buffers& b = *m_buffers;
  const std::size_t blocks = m_unit_counts.size() - 2;
  const bool gathered = m_plan.sharding.stage == ZeroStage::zero3;
  const bool unit_grads = !b.grads.defined();
  const auto params = [&](const ops::Tensor& whole, const ops::Tensor& units, std::size_t u) {
    return gathered ? unit_view(units, u) : part(whole, m_unit_begin[u], unit_size(u));
  };
  const auto grads = [&](std::size_t u) {
    return unit_grads ? unit_view(b.unit_grads, u) : part(b.grads, m_unit_begin[u], unit_size(u));
  };
  const bool half = m_shape.dtype != ops::DType::fp32;
  GptBuffers buffers;
  buffers.embed_params = params(b.params, b.unit_params, 0);
  buffers.embed_grads = grads(0);
  buffers.lnf_params = params(b.params, b.unit_params, blocks + 1);
  buffers.lnf_grads = grads(blocks + 1);
  if (half) buffers.embed_compute = params(b.params16, b.unit_params16, 0);
  for (std::size_t l = 1; l <= blocks; ++l) {
    buffers.block_params.push_back(params(b.params, b.unit_params, l));
    buffers.block_grads.push_back(grads(l));
    if (half) buffers.block_compute.push_back(params(b.params16, b.unit_params16, l));
  }
  return buffers;
}

void ZeroTrainer::step(core::PhaseTimer& timer, const TrainerPhases& phases,
                       std::uint64_t iteration) {
  m_model->zero_loss();
  if (m_plan.sharding.stage == ZeroStage::replicated || m_plan.sharding.stage == ZeroStage::zero1)
    run_whole_gradients(timer, phases, iteration);
  else
    run_rounds(timer, phases, iteration);
  const ops::Tensor& loss = m_model->loss();
  m_comm.all_reduce(loss.data(), loss.data(), 1, DType::fp64, ReduceOp::sum);
  timer.mark(phases.allreduce);
}

double ZeroTrainer::last_loss() const {
  return ops::download_scalar(m_ops, m_model->loss());
}

std::int64_t ZeroTrainer::first_sample(int k) const {
  return m_sample_offset + std::int64_t{k} * m_shape.max_micro_batch;
}

// Uploads micro-batch k's ids (this rank's batch is drawn on the host once) unless they are
// already there (always, with one micro-batch per step).
void ZeroTrainer::load_tokens(int k) {
  if (k == m_loaded) return;
  const Buffers& b = *m_buffers;
  const auto count = static_cast<std::size_t>(b.tokens.numel());
  const std::size_t at = static_cast<std::size_t>(k) * count;
  ops::upload_ints(m_ops, b.tokens,
                   std::span<const std::int32_t>(m_host_tokens).subspan(at, count));
  ops::upload_ints(m_ops, b.targets,
                   std::span<const std::int32_t>(m_host_targets).subspan(at, count));
  m_loaded = k;
}

BlockDropout ZeroTrainer::dropout(int k, std::uint64_t iteration) const {
  return {m_seed, iteration, first_sample(k) * m_shape.seq_len};
}

void ZeroTrainer::unit_finished(std::size_t unit, bool last) {
  if (last && m_reducer) m_reducer->ready_from(m_unit_begin[unit]);
}

void ZeroTrainer::run_whole_gradients(core::PhaseTimer& timer, const TrainerPhases& phases,
                                      std::uint64_t iteration) {
  Buffers& b = *m_buffers;
  m_ops.fill(b.grads, 0.0f);
  const std::size_t lnf = m_unit_counts.size() - 1;
  const core::RankPlan& me = m_plan.ranks[static_cast<std::size_t>(m_rank)];
  for (int k = 0; k < me.accumulation; ++k) {
    const bool last = k + 1 == me.accumulation;  // only its backward may start buckets
    load_tokens(k);
    m_model->embed_forward(b.tokens);
    for (int l = 0; l < m_shape.layers; ++l) m_model->block_forward(l, dropout(k, iteration));
    timer.mark(phases.fwd);
    m_model->head_forward_backward(b.targets, m_loss_scale, m_scaler.grad_scale());
    unit_finished(lnf, last);
    for (int l = m_shape.layers - 1; l >= 0; --l) {
      m_model->block_backward(l);
      unit_finished(static_cast<std::size_t>(l) + 1, last);
    }
    m_model->embed_backward();
    unit_finished(0, last);
    timer.mark(phases.bwd);
  }
  if (m_plan.sharding.stage == ZeroStage::replicated) {
    m_reducer->finish();
    timer.mark(phases.allreduce);
    m_scaler.check(b.grads);
    m_ops.adam(b.params, b.grads, b.adam_m, b.adam_v, ++m_adam_steps, m_adam,
               m_scaler.master_update(b.params16));
    m_scaler.end_step();
    timer.mark(phases.optimizer);
    return;
  }
  m_comm.reduce_scatterv(b.grads.data(), b.grad_shard.data(), m_layout.counts, DType::fp32,
                         ReduceOp::sum);
  timer.mark(phases.reducescatter);
  update_and_share(timer, phases);
}

void ZeroTrainer::run_rounds(core::PhaseTimer& timer, const TrainerPhases& phases,
                             std::uint64_t iteration) {
  Buffers& b = *m_buffers;
  m_ops.fill(b.grad_shard, 0.0f);
  const int accumulation = m_plan.ranks[static_cast<std::size_t>(m_rank)].accumulation;
  for (int k = 0; k < m_plan.rounds; ++k) {
    const bool active = k < accumulation;
    if (active) load_tokens(k);
    forward_round(timer, phases, active, dropout(k, iteration));
    backward_round(timer, phases, active);
  }
  update_and_share(timer, phases);
}

void ZeroTrainer::forward_round(core::PhaseTimer& timer, const TrainerPhases& phases, bool active,
                                const BlockDropout& masks) {
  const std::size_t last = m_unit_counts.size() - 1;
  gather_unit(timer, phases, 0);
  if (active) m_model->embed_forward(m_buffers->tokens);
  timer.mark(phases.fwd);
  for (int l = 0; l < m_shape.layers; ++l) {
    gather_unit(timer, phases, static_cast<std::size_t>(l) + 1);
    if (active) m_model->block_forward(l, masks);
    timer.mark(phases.fwd);
  }
  gather_unit(timer, phases, last);
}

void ZeroTrainer::backward_round(core::PhaseTimer& timer, const TrainerPhases& phases,
                                 bool active) {
  Buffers& b = *m_buffers;
  const std::size_t last = m_unit_counts.size() - 1;
  m_ops.fill(b.unit_grads, 0.0f);
  if (active) m_model->head_forward_backward(b.targets, m_loss_scale, m_scaler.grad_scale());
  timer.mark(phases.bwd);
  reduce_unit(timer, phases, last);
  for (int l = m_shape.layers - 1; l >= 0; --l) {
    const auto unit = static_cast<std::size_t>(l) + 1;
    gather_unit(timer, phases, unit);
    if (l + 1 < m_shape.layers) m_ops.fill(unit_view(b.unit_grads, unit), 0.0f);
    if (active) m_model->block_backward(l);
    timer.mark(phases.bwd);
    reduce_unit(timer, phases, unit);
  }
  if (active) m_model->embed_backward();
  timer.mark(phases.bwd);
  reduce_unit(timer, phases, 0);
}

// zero3: all-gathers `unit`'s parameters into its gather buffer (and refreshes their 16-bit
// working copy); other stages: nothing.
void ZeroTrainer::gather_unit(core::PhaseTimer& timer, const TrainerPhases& phases,
                              std::size_t unit) {
  if (m_plan.sharding.stage != ZeroStage::zero3) return;
  const Buffers& b = *m_buffers;
  const std::size_t at = offset_in_shard(m_layout, m_rank, m_unit_begin[unit]);
  const std::size_t mine = m_unit_counts[unit][static_cast<std::size_t>(m_rank)];
  const ops::Tensor gathered = unit_view(b.unit_params, unit);
  m_comm.all_gatherv(part(b.param_shard, at, mine).data(), gathered.data(), m_unit_counts[unit],
                     DType::fp32);
  if (b.unit_params16.defined()) m_ops.copy(gathered, unit_view(b.unit_params16, unit));
  timer.mark(phases.allgather);
}

// Reduce-scatters `unit`'s gradient buffer over the ranks and adds this rank's part to its shard.
void ZeroTrainer::reduce_unit(core::PhaseTimer& timer, const TrainerPhases& phases,
                              std::size_t unit) {
  const Buffers& b = *m_buffers;
  m_comm.reduce_scatterv(unit_view(b.unit_grads, unit).data(), b.scratch.data(),
                         m_unit_counts[unit], DType::fp32, ReduceOp::sum);
  const std::size_t at = offset_in_shard(m_layout, m_rank, m_unit_begin[unit]);
  const std::size_t count = m_unit_counts[unit][static_cast<std::size_t>(m_rank)];
  m_ops.add(part(b.scratch, 0, count), part(b.grad_shard, at, count));
  timer.mark(phases.reducescatter);
}

void ZeroTrainer::agree_on_overflow(core::PhaseTimer& timer, const TrainerPhases& phases) {
  if (!m_scaler.enabled()) return;
  m_scaler.check(m_buffers->grad_shard);
  const ops::Tensor flag = m_scaler.master_update({}).found_nonfinite;
  m_comm.all_reduce(flag.data(), flag.data(), 1, DType::int32, ReduceOp::sum);
  timer.mark(phases.allreduce);
}

// Adam on this rank's shard; then (zero1, zero2) every rank's updated shard to every rank.
void ZeroTrainer::update_and_share(core::PhaseTimer& timer, const TrainerPhases& phases) {
  const Buffers& b = *m_buffers;
  const std::size_t first = m_layout.offsets[static_cast<std::size_t>(m_rank)];
  const std::size_t count = m_layout.counts[static_cast<std::size_t>(m_rank)];
  const bool gathered = m_plan.sharding.stage == ZeroStage::zero3;
  const ops::Tensor shard = gathered ? b.param_shard : part(b.params, first, count);
  agree_on_overflow(timer, phases);
  m_ops.adam(shard, b.grad_shard, b.adam_m, b.adam_v, ++m_adam_steps, m_adam,
             m_scaler.master_update({}));
  m_scaler.end_step();
  timer.mark(phases.optimizer);
  if (gathered) return;
  m_ops.copy(shard, b.grad_shard);  // all-gatherv's send buffer may not overlap params
  m_comm.all_gatherv(b.grad_shard.data(), b.params.data(), m_layout.counts, DType::fp32);
  if (b.params16.defined()) m_ops.copy(b.params, b.params16);
  timer.mark(phases.allgather);
}

std::vector<float> ZeroTrainer::full_parameters() {
  const Buffers& b = *m_buffers;
  if (m_plan.sharding.stage != ZeroStage::zero3) return ops::download_floats(m_ops, b.params);
  const std::size_t total = m_unit_begin.back();
  const ops::Buffer all = m_ops.allocate(total * sizeof(float), "full_parameters");
  const ops::Tensor whole = all.tensor(DType::fp32, {signed_count(total)});
  m_comm.all_gatherv(b.param_shard.data(), whole.data(), m_layout.counts, DType::fp32);
  return ops::download_floats(m_ops, whole);
}

}  // namespace scaletune::kernels
