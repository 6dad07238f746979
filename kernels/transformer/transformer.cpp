#include "kernels/transformer/transformer.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <variant>

#include "harness/core/memory_budget.hpp"
#include "harness/core/workload_registry.hpp"
#include "kernels/rank_backend.hpp"
#include "kernels/transformer/micro_batch_profile.hpp"

namespace scaletune::kernels {

namespace {

const TrainerPhases kPhases{};
constexpr int kProfileRepeats = 5;  // timed calls per profiled micro-batch size

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

// Every rank's profile at micro-batches `sizes` (collective; the calls of all ranks start
// together), each smoothed by affine_profile.
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
  const std::vector<double> mine =
      profiler->run(sizes, kProfileRepeats, [&] { ctx.comm->barrier(); }).time_s;
  const auto ranks = static_cast<std::size_t>(ctx.comm->size());
  std::vector<double> all(ranks * sizes.size());
  ctx.comm->all_gather(mine.data(), all.data(), sizes.size(), core::DType::fp64);
  std::vector<core::RankProfile> profiles(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    profiles[r].micro_batches = sizes;
    profiles[r].time_s.assign(all.begin() + static_cast<long>(r * sizes.size()),
                              all.begin() + static_cast<long>((r + 1) * sizes.size()));
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
          gpt_shape(options, activation_dtype(*m_backend, config.precision), m_backend->kind())) {
  GptModel::parameter_count(m_shape);  // checks the shape before any collective
  const TransformerPlanRequest request = plan_request(*m_backend, m_shape, config, ctx);
  if (!request.profiles.empty()) {
    GptShape profiled = m_shape;
    profiled.max_micro_batch = request.profiles.front().micro_batches.back();
    m_profile_bytes = MicroBatchProfiler::bytes(profiled);
  }
  m_plan = plan_transformer(request);
  // A described step (trace, predict) is no run: its plan is in the description, not printed
  // once per described rank and thread.
  if (ctx.comm->rank() == 0 && m_backend->kind() != ops::BackendKind::describe) {
    std::printf("  %s plan: %s\n", config.id.c_str(), describe_plan(m_plan).c_str());
    std::fflush(stdout);
  }
  if (!m_plan.fits) throw core::MemoryBudgetExceeded(m_plan.why);
  const AdamOptions adam{.lr = static_cast<float>(options.learning_rate)};
  const TrainerOptions exchange{ctx.memory_budget_bytes, ctx.bucket_bytes, ctx.overlap};
  m_trainer = std::make_unique<ZeroTrainer>(*m_backend, m_shape, m_plan, ctx.comm->rank(),
                                            *ctx.comm, ctx.seed, adam, exchange);
}

Transformer::~Transformer() = default;

std::vector<std::string> Transformer::phase_names() const {
  return {"fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"};
}

void Transformer::step(core::PhaseTimer& timer) {
  m_trainer->step(timer, kPhases, m_iteration++);
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
          {"skipped_steps", static_cast<double>(m_trainer->skipped_steps())}};
}

std::vector<std::pair<std::string, std::string>> Transformer::text_attributes() const {
  return {{"zero_stage", state_sharding_text(m_plan.sharding)}, {"plan", describe_plan(m_plan)}};
}

void register_transformer(core::WorkloadRegistry& registry) {
  registry.add("transformer",
               [](const job::WorkloadSpec& spec, const job::Config& config,
                  const core::RankContext& ctx) -> std::unique_ptr<core::Workload> {
                 return std::make_unique<Transformer>(spec.transformer, config, ctx);
               });
}

}  // namespace scaletune::kernels
