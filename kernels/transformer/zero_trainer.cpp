#include "kernels/transformer/zero_trainer.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/host/gpt_init.hpp"
#include "kernels/transformer/token_batch.hpp"

namespace scaletune::kernels {

using core::DType;
using core::ReduceOp;

struct ZeroTrainer::Buffers {
  Vector params;           ///< [N] whole parameters (replicated, zero1, zero2)
  Vector grads;            ///< [N] whole gradients (replicated, zero1)
  Vector param_shard;      ///< [n] (zero3)
  Vector grad_shard;       ///< [n] reduced gradients of the shard (zero1, zero2, zero3)
  Vector adam_m, adam_v;   ///< [N] (replicated) or [n]
  Vector unit_params;      ///< [E + Lb + F] gather buffers: embeddings, one block, ln_f (zero3)
  Vector unit_grads;       ///< [E + Lb + F] gradient buffers of the same units (zero2, zero3)
  Vector scratch;          ///< [c] reduce-scatterv receive buffer (zero2, zero3)
  Labels tokens, targets;  ///< [m S] the current micro-batch
};

namespace {

Vector allocate(const std::string& name, std::size_t n, bool needed) {
  return Vector(name, needed ? n : 0);
}

std::span<float> window(const Vector& v, std::size_t at, std::size_t n) {
  return {v.data() + at, n};
}

std::size_t largest_part(const std::vector<std::vector<std::size_t>>& unit_counts, int rank) {
  std::size_t largest = 0;
  for (const auto& counts : unit_counts)
    largest = std::max(largest, counts[static_cast<std::size_t>(rank)]);
  return largest;
}

}  // namespace

ZeroTrainer::ZeroTrainer(const GptShape& shape, const TransformerPlan& plan, int rank,
                         core::Communicator& comm, std::uint64_t seed, const AdamOptions& adam)
    : m_shape(shape), m_plan(plan), m_rank(rank), m_comm(comm), m_seed(seed), m_adam(adam) {
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
  m_model = std::make_unique<GptModel>(m_shape, model_buffers());
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
  const std::size_t tokens =
      static_cast<std::size_t>(m_shape.max_micro_batch) * static_cast<std::size_t>(m_shape.seq_len);
  m_buffers = std::make_unique<Buffers>();
  Buffers& b = *m_buffers;
  b.params = allocate("params", total, whole_params);
  b.grads = allocate("grads", total, whole_grads);
  b.param_shard = allocate("param_shard", shard, !whole_params);
  b.grad_shard = allocate("grad_shard", shard, sharded);
  b.adam_m = allocate("adam_m", sharded ? shard : total, true);
  b.adam_v = allocate("adam_v", sharded ? shard : total, true);
  b.unit_params = allocate("unit_params", units, !whole_params);
  b.unit_grads = allocate("unit_grads", units, !whole_grads);
  b.scratch = allocate("scratch", largest_part(m_unit_counts, m_rank), !whole_grads);
  b.tokens = Labels("tokens", tokens);
  b.targets = Labels("targets", tokens);
}

std::size_t ZeroTrainer::unit_size(std::size_t unit) const {
  return m_unit_begin[unit + 1] - m_unit_begin[unit];
}

// Offset of `unit` in unit_params / unit_grads: embeddings, then the one block, then ln_f.
std::size_t ZeroTrainer::unit_slot(std::size_t unit) const {
  if (unit == 0) return 0;
  return unit + 1 < m_unit_counts.size() ? unit_size(0) : unit_size(0) + unit_size(1);
}

void ZeroTrainer::initialise_parameters() {
  Buffers& b = *m_buffers;
  GptInitializer init(m_shape, m_seed);
  const std::size_t first = m_layout.offsets[static_cast<std::size_t>(m_rank)];
  const std::size_t count = m_layout.counts[static_cast<std::size_t>(m_rank)];
  for (std::size_t u = 0; u < m_unit_counts.size(); ++u) {
    if (m_plan.sharding.stage != ZeroStage::zero3) {
      init.fill_next_unit(window(b.params, m_unit_begin[u], unit_size(u)));
      continue;
    }
    const std::span<float> unit = window(b.unit_params, unit_slot(u), unit_size(u));
    init.fill_next_unit(unit);
    const std::size_t lo = std::max(first, m_unit_begin[u]);
    const std::size_t hi = std::min(first + count, m_unit_begin[u + 1]);
    for (std::size_t i = lo; i < hi; ++i) b.param_shard(i - first) = unit[i - m_unit_begin[u]];
  }
}

GptBuffers ZeroTrainer::model_buffers() const {
  const Buffers& b = *m_buffers;
  const std::size_t blocks = m_unit_counts.size() - 2;
  const bool gathered = m_plan.sharding.stage == ZeroStage::zero3;
  const bool unit_grads = b.grads.extent(0) == 0;
  const auto params = [&](std::size_t u) {
    return gathered ? window(b.unit_params, unit_slot(u), unit_size(u))
                    : window(b.params, m_unit_begin[u], unit_size(u));
  };
  const auto grads = [&](std::size_t u) {
    return unit_grads ? window(b.unit_grads, unit_slot(u), unit_size(u))
                      : window(b.grads, m_unit_begin[u], unit_size(u));
  };
  GptBuffers buffers{params(0), grads(0), {}, {}, params(blocks + 1), grads(blocks + 1)};
  for (std::size_t l = 1; l <= blocks; ++l) {
    buffers.block_params.push_back(params(l));
    buffers.block_grads.push_back(grads(l));
  }
  return buffers;
}

double ZeroTrainer::step(core::PhaseTimer& timer, const TrainerPhases& phases,
                         std::uint64_t iteration) {
  m_loss = 0.0;
  if (m_plan.sharding.stage == ZeroStage::replicated || m_plan.sharding.stage == ZeroStage::zero1)
    run_whole_gradients(timer, phases, iteration);
  else
    run_rounds(timer, phases, iteration);
  m_comm.all_reduce(&m_loss, &m_loss, 1, DType::fp64, ReduceOp::sum);
  timer.mark(phases.allreduce);
  return m_loss;
}

std::int64_t ZeroTrainer::first_sample(int k) const {
  return m_sample_offset + std::int64_t{k} * m_shape.max_micro_batch;
}

void ZeroTrainer::load_tokens(int k) {
  const Buffers& b = *m_buffers;
  fill_token_batch(m_seed, first_sample(k), m_shape.seq_len, m_shape.vocab, b.tokens, b.targets);
}

BlockDropout ZeroTrainer::dropout(int k, std::uint64_t iteration) const {
  return {m_seed, iteration, first_sample(k) * m_shape.seq_len};
}

void ZeroTrainer::run_whole_gradients(core::PhaseTimer& timer, const TrainerPhases& phases,
                                      std::uint64_t iteration) {
  Buffers& b = *m_buffers;
  Kokkos::deep_copy(b.grads, 0.0f);
  const core::RankPlan& me = m_plan.ranks[static_cast<std::size_t>(m_rank)];
  for (int k = 0; k < me.accumulation; ++k) {
    load_tokens(k);
    m_model->embed_forward(b.tokens);
    for (int l = 0; l < m_shape.layers; ++l) m_model->block_forward(l, dropout(k, iteration));
    timer.mark(phases.fwd);
    m_loss += m_model->head_forward_backward(b.targets, m_loss_scale);
    for (int l = m_shape.layers - 1; l >= 0; --l) m_model->block_backward(l);
    m_model->embed_backward();
    timer.mark(phases.bwd);
  }
  if (m_plan.sharding.stage == ZeroStage::replicated) {
    m_comm.all_reduce(b.grads.data(), b.grads.data(), b.grads.extent(0), DType::fp32,
                      ReduceOp::sum);
    timer.mark(phases.allreduce);
    adam_step(b.params, b.grads, b.adam_m, b.adam_v, ++m_adam_steps, m_adam);
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
  Kokkos::deep_copy(b.grad_shard, 0.0f);
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
  Kokkos::deep_copy(b.unit_grads, 0.0f);
  if (active) m_loss += m_model->head_forward_backward(b.targets, m_loss_scale);
  timer.mark(phases.bwd);
  reduce_unit(timer, phases, last);
  for (int l = m_shape.layers - 1; l >= 0; --l) {
    const auto unit = static_cast<std::size_t>(l) + 1;
    gather_unit(timer, phases, unit);
    if (l + 1 < m_shape.layers) Kokkos::deep_copy(unit_view(b.unit_grads, unit), 0.0f);
    if (active) m_model->block_backward(l);
    timer.mark(phases.bwd);
    reduce_unit(timer, phases, unit);
  }
  if (active) m_model->embed_backward();
  timer.mark(phases.bwd);
  reduce_unit(timer, phases, 0);
}

Vector ZeroTrainer::unit_view(const Vector& buffer, std::size_t unit) const {
  return Vector(buffer.data() + unit_slot(unit), unit_size(unit));
}

// zero3: all-gathers `unit`'s parameters into its gather buffer; other stages: nothing.
void ZeroTrainer::gather_unit(core::PhaseTimer& timer, const TrainerPhases& phases,
                              std::size_t unit) {
  if (m_plan.sharding.stage != ZeroStage::zero3) return;
  const Buffers& b = *m_buffers;
  const std::size_t at = offset_in_shard(m_layout, m_rank, m_unit_begin[unit]);
  m_comm.all_gatherv(b.param_shard.data() + at, b.unit_params.data() + unit_slot(unit),
                     m_unit_counts[unit], DType::fp32);
  timer.mark(phases.allgather);
}

// Reduce-scatters `unit`'s gradient buffer over the ranks and adds this rank's part to its shard.
void ZeroTrainer::reduce_unit(core::PhaseTimer& timer, const TrainerPhases& phases,
                              std::size_t unit) {
  Buffers& b = *m_buffers;
  m_comm.reduce_scatterv(b.unit_grads.data() + unit_slot(unit), b.scratch.data(),
                         m_unit_counts[unit], DType::fp32, ReduceOp::sum);
  const std::size_t at = offset_in_shard(m_layout, m_rank, m_unit_begin[unit]);
  const std::size_t count = m_unit_counts[unit][static_cast<std::size_t>(m_rank)];
  for (std::size_t i = 0; i < count; ++i) b.grad_shard(at + i) += b.scratch(i);
  timer.mark(phases.reducescatter);
}

// Adam on this rank's shard; then (zero1, zero2) every rank's updated shard to every rank.
void ZeroTrainer::update_and_share(core::PhaseTimer& timer, const TrainerPhases& phases) {
  Buffers& b = *m_buffers;
  const std::size_t first = m_layout.offsets[static_cast<std::size_t>(m_rank)];
  const std::size_t count = m_layout.counts[static_cast<std::size_t>(m_rank)];
  const bool gathered = m_plan.sharding.stage == ZeroStage::zero3;
  const Vector shard = gathered ? b.param_shard : Vector(b.params.data() + first, count);
  adam_step(shard, b.grad_shard, b.adam_m, b.adam_v, ++m_adam_steps, m_adam);
  timer.mark(phases.optimizer);
  if (gathered) return;
  Kokkos::deep_copy(b.grad_shard, shard);  // all-gatherv's send buffer may not overlap params
  m_comm.all_gatherv(b.grad_shard.data(), b.params.data(), m_layout.counts, DType::fp32);
  timer.mark(phases.allgather);
}

std::vector<float> ZeroTrainer::full_parameters() {
  const Buffers& b = *m_buffers;
  std::vector<float> all(m_unit_begin.back());
  if (m_plan.sharding.stage == ZeroStage::zero3)
    m_comm.all_gatherv(b.param_shard.data(), all.data(), m_layout.counts, DType::fp32);
  else
    std::copy(b.params.data(), b.params.data() + all.size(), all.begin());
  return all;
}

std::int64_t ZeroTrainer::allocated_bytes() const {
  const Buffers& b = *m_buffers;
  std::size_t floats = 0;
  for (const Vector* v : {&b.params, &b.grads, &b.param_shard, &b.grad_shard, &b.adam_m, &b.adam_v,
                          &b.unit_params, &b.unit_grads, &b.scratch})
    floats += v->span();
  const std::size_t ints = b.tokens.span() + b.targets.span();
  return static_cast<std::int64_t>(floats * sizeof(float) + ints * sizeof(int)) +
         m_model->activation_bytes();
}

}  // namespace scaletune::kernels
