#include "kernels/transformer/transformer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "harness/core/memory_budget.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/rank_backend.hpp"
#include "kernels/transformer/compute_clock.hpp"
#include "kernels/transformer/micro_batch_profile.hpp"

namespace scaletune::kernels {

namespace {

const TrainerPhases kPhases{};
constexpr int kProfileRepeats = 5;                     // timed calls per profiled micro-batch size
constexpr std::uint64_t kNoCheck = ~std::uint64_t{0};  // a step index never reached

// Whether two plans give every rank the same batch, micro-batch and shard.
bool same_parts(const TransformerPlan& a, const TransformerPlan& b) {
  if (a.sharding.stage != b.sharding.stage || a.ranks.size() != b.ranks.size()) return false;
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    const core::RankPlan &x = a.ranks[i], &y = b.ranks[i];
    if (x.batch != y.batch || x.micro_batch != y.micro_batch ||
        x.shard_fraction != y.shard_fraction)
      return false;
  }
  return true;
}

// "r0 1.02, r1 1.31": each rank's measured / predicted seconds.
std::string ratios_text(const std::vector<double>& measured, const std::vector<double>& predicted) {
  std::string text;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%sr%zu %.2f", i ? ", " : "", i, measured[i] / predicted[i]);
    text += buf;
  }
  return text;
}

}  // namespace

GptShape gpt_shape(const job::TransformerOptions& o, ops::DType dtype, ops::BackendKind backend) {
  return {.layers = o.layers,
          .hidden = o.hidden,
          .heads = o.heads,
          .seq_len = o.seq_len,
          .vocab = o.vocab,
          .ffn_mult = o.ffn_mult,
          .dropout = static_cast<float>(o.dropout),
          .max_micro_batch = 1,
          .dtype = dtype,
          .backend = backend};
}

namespace {

// The activation type of `precision` on `backend`; throws std::invalid_argument when the backend
// does not compute in it (the host: fp32 only).
ops::DType activation_dtype(const ops::Backend& backend, job::DataType precision) {
  const ops::DType dtype = compute_dtype(backend, precision);
  if (dtype != core::dtype_of(precision))
    throw std::invalid_argument("transformer: precision " +
                                std::string(job::data_type_text(precision)) +
                                " is not supported on this backend (fp32 only)");
  return dtype;
}

std::vector<std::int64_t> gathered_capacities(const core::RankContext& ctx) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(ctx.comm->size()));
  const std::int64_t mine = ctx.memory_budget_bytes;
  ctx.comm->all_gather(&mine, all.data(), 1, core::DType::int64);
  return all;
}

// The largest micro-batch worth profiling: twice an even share, at most what a rank may hold
// (B - ranks + 1) and what the smallest capacity can hold.
int largest_profiled(const GptShape& shape, int global_batch,
                     const std::vector<std::int64_t>& cap) {
  const int ranks = static_cast<int>(cap.size());
  int largest = std::min(global_batch - ranks + 1, 2 * ((global_batch + ranks - 1) / ranks));
  std::int64_t smallest = 0;  // the smallest limit; 0: none
  for (const std::int64_t c : cap)
    if (c > 0 && (smallest == 0 || c < smallest)) smallest = c;
  GptShape probe = shape;
  for (probe.max_micro_batch = largest;
       smallest > 0 && probe.max_micro_batch > 1 && MicroBatchProfiler::bytes(probe) > smallest;)
    probe.max_micro_batch /= 2;
  return std::max(1, probe.max_micro_batch);
}

// Throws core::MemoryBudgetExceeded on every rank when a rank could not allocate its profiler
// within its budget (collective).
void agree_profiler_allocated(bool allocated, const GptShape& shape, const core::RankContext& ctx) {
  std::vector<std::int64_t> budgets(static_cast<std::size_t>(ctx.comm->size()));
  const std::int64_t mine = allocated ? -1 : ctx.memory_budget_bytes;  // -1: allocated
  ctx.comm->all_gather(&mine, budgets.data(), 1, core::DType::int64);
  const auto failed = std::find_if(budgets.begin(), budgets.end(), [](auto b) { return b >= 0; });
  if (failed == budgets.end()) return;
  const std::int64_t need = MicroBatchProfiler::bytes(shape);
  std::string message = "the profile model does not fit rank " +
                        std::to_string(failed - budgets.begin()) + ": it needs " +
                        core::format_bytes(need) + " for micro-batches up to " +
                        std::to_string(shape.max_micro_batch);
  if (*failed > 0)
    message += ", more than its " + core::format_bytes(*failed) + ": short by " +
               core::format_bytes(need - *failed);
  throw core::MemoryBudgetExceeded(message);
}

// Every rank's profile at micro-batches `sizes` with its spreads (collective; the calls of all
// ranks start together), each smoothed by affine_profile.
std::vector<core::RankProfile> gathered_profiles(ops::Backend& backend, const GptShape& shape,
                                                 const std::vector<int>& sizes,
                                                 const core::RankContext& ctx) {
  GptShape largest = shape;
  largest.max_micro_batch = sizes.back();
  std::unique_ptr<MicroBatchProfiler> profiler;
  const std::int64_t budget = ctx.memory_budget_bytes;
  try {
    if (budget <= 0 || MicroBatchProfiler::bytes(largest) <= budget)
      profiler =
          std::make_unique<MicroBatchProfiler>(backend, largest, ctx.seed, ctx.device, budget);
  } catch (const std::bad_alloc&) {
  }
  agree_profiler_allocated(profiler != nullptr, largest, ctx);
  const core::RankProfile measured =
      profiler->run(sizes, kProfileRepeats, [&] { ctx.comm->barrier(); });
  std::vector<double> mine = measured.time_s;  // [times..., spreads...]
  mine.insert(mine.end(), measured.spread.begin(), measured.spread.end());
  const auto ranks = static_cast<std::size_t>(ctx.comm->size());
  const std::size_t n = sizes.size();
  std::vector<double> all(ranks * 2 * n);
  ctx.comm->all_gather(mine.data(), all.data(), 2 * n, core::DType::fp64);
  std::vector<core::RankProfile> profiles(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto first = all.begin() + static_cast<long>(2 * r * n);
    profiles[r].micro_batches = sizes;
    profiles[r].time_s.assign(first, first + static_cast<long>(n));
    profiles[r].spread.assign(first + static_cast<long>(n), first + static_cast<long>(2 * n));
    profiles[r] = affine_profile(profiles[r]);
  }
  return profiles;
}

TransformerPlanRequest plan_request(ops::Backend& backend, const GptShape& shape,
                                    const job::Config& config, const core::RankContext& ctx) {
  TransformerPlanRequest request;
  request.shape = shape;
  request.global_batch = config.global_batch;
  request.per_rank_batch = config.per_rank_batch;
  request.auto_split = config.batch_split == "auto";
  request.sharding = std::get<job::StateSharding>(config.sharding);
  request.capacity_bytes = gathered_capacities(ctx);
  if (request.per_rank_batch.empty()) {
    const int largest = largest_profiled(shape, config.global_batch, request.capacity_bytes);
    request.profiles = gathered_profiles(backend, shape, profile_sizes(largest), ctx);
  }
  return request;
}

}  // namespace

Transformer::Transformer(const job::TransformerOptions& options, const job::Config& config,
                         const core::RankContext& ctx)
    : m_options(options),
      m_backend(make_backend(ctx)),
      m_shape(
          gpt_shape(options, activation_dtype(*m_backend, config.precision), m_backend->kind())),
      m_comm(ctx.comm),
      m_seed(ctx.seed),
      m_exchange{ctx.memory_budget_bytes, ctx.bucket_bytes, ctx.overlap},
      m_config_id(config.id),
      m_check_step(kNoCheck) {
  GptModel::parameter_count(m_shape);  // checks the shape before any collective
  m_request = plan_request(*m_backend, m_shape, config, ctx);
  if (!m_request.profiles.empty()) {
    GptShape profiled = m_shape;
    profiled.max_micro_batch = m_request.profiles.front().micro_batches.back();
    m_profile_bytes = MicroBatchProfiler::bytes(profiled);
    if (ctx.warmup >= 2 && m_backend->kind() != ops::BackendKind::describe) m_check_step = 1;
  }
  m_plan = plan_transformer(m_request);
  say("plan: " + describe_plan(m_plan));
  if (!m_plan.fits) throw core::MemoryBudgetExceeded(m_plan.why);
  m_trainer = make_trainer();
}

std::unique_ptr<ZeroTrainer> Transformer::make_trainer() const {
  const AdamOptions adam{.lr = static_cast<float>(m_options.learning_rate)};
  return std::make_unique<ZeroTrainer>(*m_backend, m_shape, m_plan, m_comm->rank(), *m_comm, m_seed,
                                       adam, m_exchange);
}

void Transformer::say(const std::string& text) const {
  // A described step (trace, predict) is no run: its plan is in the description, not printed
  // once per described rank and thread.
  if (m_comm->rank() != 0 || m_backend->kind() == ops::BackendKind::describe) return;
  std::printf("  %s %s\n", m_config_id.c_str(), text.c_str());
  std::fflush(stdout);
}

Transformer::CheckedStep Transformer::checked_step(core::PhaseTimer& timer) {
  double mine[2] = {0, 0};  // this rank's compute and step seconds
  {
    const ComputeClock clock(timer, {kPhases.fwd, kPhases.bwd});
    const auto start = std::chrono::steady_clock::now();
    m_trainer->step(timer, kPhases, m_iteration++);
    mine[1] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    mine[0] = clock.busy_s();
  }
  const auto ranks = static_cast<std::size_t>(m_comm->size());
  std::vector<double> all(2 * ranks);
  m_comm->all_gather(mine, all.data(), 2, core::DType::fp64);
  CheckedStep checked;
  for (std::size_t r = 0; r < ranks; ++r) {
    checked.compute_s.push_back(all[2 * r]);
    checked.step_s = std::max(checked.step_s, all[2 * r + 1]);
  }
  return checked;
}

std::optional<TransformerPlan> Transformer::replanned(const CheckedStep& checked) const {
  std::vector<double> predicted;
  for (const core::RankPlan& r : m_plan.ranks) predicted.push_back(r.step_time_s);
  const auto corrected = corrected_profiles(m_request.profiles, predicted, checked.compute_s);
  if (!corrected) return std::nullopt;
  TransformerPlanRequest request = m_request;
  request.profiles = *corrected;
  TransformerPlan plan = plan_transformer(request);
  if (!plan.fits || same_parts(plan, m_plan)) return std::nullopt;
  plan.why = "re-planned after the second warm-up step, whose forward + backward took " +
             ratios_text(checked.compute_s, predicted) + " of the prediction: " + plan.why;
  return plan;
}

void Transformer::switch_plan(TransformerPlan plan, core::PhaseTimer& timer) {
  m_trainer.reset();  // its memory first
  m_plan = std::move(plan);
  m_trainer = make_trainer();
  m_trainer->step(timer, kPhases, m_iteration++);  // its first, cold step: untimed
}

void Transformer::check_plan(core::PhaseTimer& timer) {
  const CheckedStep first = checked_step(timer);
  std::optional<TransformerPlan> second = replanned(first);
  if (!second) return;
  TransformerPlan kept = m_plan;
  switch_plan(std::move(*second), timer);
  const double second_s = checked_step(timer).step_s;
  char buf[128];
  std::snprintf(buf, sizeof buf, "; a step took %.3g s, the first plan's %.3g s", second_s,
                first.step_s);
  if (second_s <= first.step_s) {
    m_plan.why += buf;
    m_replanned = true;
    say("re-plan: " + describe_plan(m_plan));
    return;
  }
  switch_plan(std::move(kept), timer);
  std::snprintf(buf, sizeof buf, "kept its plan: the re-plan's step took %.3g s, the plan's %.3g s",
                second_s, first.step_s);
  say(buf);
}

Transformer::~Transformer() = default;

std::vector<std::string> Transformer::phase_names() const {
  return {"fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"};
}

void Transformer::step(core::PhaseTimer& timer) {
  if (m_iteration != m_check_step) {
    m_trainer->step(timer, kPhases, m_iteration++);
    return;
  }
  check_plan(timer);
}

double Transformer::params() const {
  return static_cast<double>(GptModel::parameter_count(m_shape));
}

double Transformer::flops_per_sample() const {
  const double s = m_shape.seq_len;
  return 6.0 * params() * s + 12.0 * m_shape.layers * m_shape.hidden * s * s;
}

std::int64_t Transformer::memory_peak_bytes() const {
  return std::max(m_profile_bytes, m_trainer->allocated_bytes());
}

std::vector<int> Transformer::per_rank_batch() const {
  std::vector<int> batch;
  for (const core::RankPlan& r : m_plan.ranks) batch.push_back(r.batch);
  return batch;
}

std::vector<std::pair<std::string, double>> Transformer::attributes() const {
  std::int64_t largest = 0;
  for (const core::RankPlan& r : m_plan.ranks) largest = std::max(largest, r.memory_bytes);
  return {{"layers", m_options.layers},
          {"hidden", m_options.hidden},
          {"heads", m_options.heads},
          {"seq_len", m_options.seq_len},
          {"vocab", m_options.vocab},
          {"ffn_mult", m_options.ffn_mult},
          {"dropout", m_options.dropout},
          {"learning_rate", m_options.learning_rate},
          {"rounds", m_plan.rounds},
          {"memory_estimate", static_cast<double>(largest)},
          {"skipped_steps", static_cast<double>(m_trainer->skipped_steps())},
          {"replanned", m_replanned ? 1.0 : 0.0}};
}

std::vector<std::pair<std::string, std::string>> Transformer::text_attributes() const {
  return {{"zero_stage", state_sharding_text(m_plan.sharding)}, {"plan", describe_plan(m_plan)}};
}

std::vector<core::RankProfile> Transformer::rank_profiles() const {
  std::vector<core::RankProfile> profiles = m_request.profiles;
  for (std::size_t i = 0; i < profiles.size(); ++i)
    profiles[i].capacity_bytes = std::max<std::int64_t>(0, m_request.capacity_bytes[i]);
  return profiles;
}

std::optional<core::MemoryModel> Transformer::profile_memory_model() const {
  if (m_request.profiles.empty()) return std::nullopt;
  return m_plan.memory_model;
}

void register_transformer(core::WorkloadRegistry& registry) {
  registry.add("transformer",
               [](const job::WorkloadSpec& spec, const job::Config& config,
                  const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
                 return std::make_unique<Transformer>(spec.transformer, config, ctx);
               });
}

}  // namespace scaletune::kernels
