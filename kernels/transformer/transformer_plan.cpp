#include "kernels/transformer/transformer_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "harness/core/memory_budget.hpp"
#include "kernels/transformer/state_layout.hpp"

namespace scaletune::kernels {

namespace {

constexpr std::int64_t kUnlimited = std::int64_t{1} << 60;

std::size_t count(const std::vector<int>& v) {
  return v.size();
}

std::vector<std::int64_t> capacities(const TransformerPlanRequest& request) {
  std::vector<std::int64_t> cap = request.capacity_bytes;
  for (std::int64_t& c : cap)
    if (c <= 0) c = kUnlimited;
  return cap;
}

void check(const TransformerPlanRequest& request) {
  const std::size_t n = request.capacity_bytes.size();
  const bool profiled = request.per_rank_batch.empty();
  if (n == 0) throw std::invalid_argument("plan_transformer: no ranks");
  if (!profiled && count(request.per_rank_batch) != n)
    throw std::invalid_argument("plan_transformer: per_rank_batch has " +
                                std::to_string(request.per_rank_batch.size()) + " entries for " +
                                std::to_string(n) + " ranks");
  if (profiled && request.profiles.size() != n)
    throw std::invalid_argument(
        "plan_transformer: a proportional or auto split needs one profile "
        "per rank, got " +
        std::to_string(request.profiles.size()) + " for " + std::to_string(n) + " ranks");
}

GptShape with_micro_batch(GptShape shape, int micro_batch) {
  shape.max_micro_batch = micro_batch;
  return shape;
}

// Samples/s of each rank at its largest profiled micro-batch.
std::vector<double> profiled_speeds(const std::vector<core::RankProfile>& profiles) {
  std::vector<double> speed;
  for (const core::RankProfile& p : profiles)
    speed.push_back(p.micro_batches.back() / p.time_s.back());
  return speed;
}

int next_smaller_divisor(int batch, int micro_batch) {
  for (int m = micro_batch - 1; m > 1; --m)
    if (batch % m == 0) return m;
  return 1;
}

double model_bytes(const core::MemoryModel& model, double fraction, int micro_batch) {
  return model.replicated_bytes + model.state_bytes * fraction +
         model.activation_bytes_per_sample * micro_batch;
}

std::vector<double> shard_fractions(const std::vector<std::int64_t>& cap,
                                    const core::MemoryModel& model,
                                    const std::vector<int>& micro_batch) {
  if (model.state_bytes > 0) return core::memory_proportional_fractions(cap, model, micro_batch);
  return std::vector<double>(cap.size(), 1.0 / static_cast<double>(cap.size()));
}

// The rank whose micro-batch to shrink next, or -1 when none can shrink.
int rank_to_shrink(const std::vector<std::int64_t>& cap, const core::MemoryModel& model,
                   const std::vector<double>& fractions, const std::vector<int>& micro_batch) {
  int pick = -1;
  double largest = -1.0;
  for (std::size_t i = 0; i < cap.size(); ++i) {
    const bool over =
        model_bytes(model, fractions[i], micro_batch[i]) > static_cast<double>(cap[i]);
    const bool helps = model.state_bytes > 0 || over;  // shared fractions: any rank helps
    const double share = model.activation_bytes_per_sample * micro_batch[i] / cap[i];
    if (micro_batch[i] > 1 && helps && share > largest) pick = static_cast<int>(i), largest = share;
  }
  return pick;
}

bool all_fit(const std::vector<std::int64_t>& cap, const core::MemoryModel& model,
             const std::vector<double>& fractions, const std::vector<int>& micro_batch) {
  for (std::size_t i = 0; i < cap.size(); ++i)
    if (model_bytes(model, fractions[i], micro_batch[i]) > static_cast<double>(cap[i]))
      return false;
  return true;
}

std::string speeds_text(const std::vector<double>& speed) {
  std::string text;
  for (std::size_t i = 0; i < speed.size(); ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%sr%zu %.3g", i ? ", " : "", i, speed[i]);
    text += buf;
  }
  return text;
}

TransformerPlan plan_fixed_split(const TransformerPlanRequest& request,
                                 const core::MemoryModel& model) {
  const std::vector<std::int64_t> cap = capacities(request);
  const bool profiled = request.per_rank_batch.empty();
  std::vector<int> batch = request.per_rank_batch;
  TransformerPlan plan;
  if (profiled) {
    const std::vector<double> speed = profiled_speeds(request.profiles);
    batch = core::proportional_split(request.global_batch, speed);
    plan.why = "batch split in proportion to measured samples/s (" + speeds_text(speed) + ")";
  } else {
    plan.why = "batch split as configured";
  }
  std::vector<int> micro = batch;
  std::vector<double> fractions = shard_fractions(cap, model, micro);
  for (int r; !all_fit(cap, model, fractions, micro) &&
              (r = rank_to_shrink(cap, model, fractions, micro)) >= 0;) {
    auto& m = micro[static_cast<std::size_t>(r)];
    m = next_smaller_divisor(batch[static_cast<std::size_t>(r)], m);
    fractions = shard_fractions(cap, model, micro);
  }
  for (std::size_t i = 0; i < cap.size(); ++i) {
    core::RankPlan rank{batch[i], micro[i], batch[i] / micro[i], fractions[i], 0.0, 0};
    if (profiled)
      rank.step_time_s =
          rank.accumulation * core::micro_batch_time_s(request.profiles[i], micro[i]);
    plan.ranks.push_back(rank);
  }
  plan.why += "; each micro-batch the largest divisor of the rank's batch that fits";
  return plan;
}

TransformerPlan plan_auto_split(const TransformerPlanRequest& request,
                                const core::MemoryModel& model, ZeroStage stage) {
  std::vector<core::RankProfile> profiles = request.profiles;
  const std::vector<std::int64_t> cap = capacities(request);
  for (std::size_t i = 0; i < profiles.size(); ++i) profiles[i].capacity_bytes = cap[i];
  const bool lockstep = stage == ZeroStage::zero2 || stage == ZeroStage::zero3;
  const core::HeteroPlan hetero =
      lockstep ? core::plan_heterogeneous_lockstep(profiles, model, request.global_batch)
               : core::plan_heterogeneous(profiles, model, request.global_batch);
  TransformerPlan plan;
  plan.ranks = hetero.ranks;
  plan.why = "batch, micro-batches and shards chosen by the planner for the least step time: " +
             hetero.why;
  return plan;
}

// Exact memory of every rank, whether all fit, and the shortfall when not.
void account_memory(const TransformerPlanRequest& request, TransformerPlan& plan) {
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(request.shape);
  std::vector<double> fractions;
  for (const core::RankPlan& r : plan.ranks) fractions.push_back(r.shard_fraction);
  const auto total = static_cast<std::size_t>(GptModel::parameter_count(request.shape));
  const ShardLayout layout = shard_layout(total, fractions);
  const std::vector<std::int64_t> cap = capacities(request);
  std::vector<std::size_t> scratch(cap.size(), 0);
  for (std::size_t u = 0, begin = 0; u < units.size();
       begin += static_cast<std::size_t>(units[u++])) {
    const auto counts = unit_counts(layout, begin, begin + static_cast<std::size_t>(units[u]));
    for (std::size_t i = 0; i < cap.size(); ++i) scratch[i] = std::max(scratch[i], counts[i]);
  }
  plan.fits = true;
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < cap.size(); ++i) {
    const GptShape shape = with_micro_batch(request.shape, plan.ranks[i].micro_batch);
    plan.memory.push_back(
        transformer_memory(shape, plan.sharding.stage, layout.counts[i], scratch[i]));
    plan.ranks[i].memory_bytes = plan.memory[i].total();
    const std::int64_t short_by = plan.ranks[i].memory_bytes - cap[i];
    if (short_by <= 0 || short_by <= worst) continue;
    plan.fits = false, worst = short_by;
    plan.why = "rank " + std::to_string(i) + " needs " +
               core::format_bytes(plan.ranks[i].memory_bytes) + " (" + plan.memory[i].describe() +
               ", micro-batch " + std::to_string(plan.ranks[i].micro_batch) + "), more than its " +
               core::format_bytes(cap[i]) + ": short by " + core::format_bytes(short_by);
  }
}

TransformerPlan plan_stage(const TransformerPlanRequest& request, const StateSharding& sharding) {
  const int n = static_cast<int>(request.capacity_bytes.size());
  const core::MemoryModel model =
      transformer_memory_model(request.shape, sharding.stage, sharding.memory_proportional, n);
  TransformerPlan plan = request.auto_split ? plan_auto_split(request, model, sharding.stage)
                                            : plan_fixed_split(request, model);
  plan.sharding = sharding;
  for (const core::RankPlan& r : plan.ranks) plan.rounds = std::max(plan.rounds, r.accumulation);
  account_memory(request, plan);
  return plan;
}

}  // namespace

TransformerPlan plan_transformer(const TransformerPlanRequest& request) {
  check(request);
  if (!request.sharding.automatic) return plan_stage(request, request.sharding);
  std::string tried;
  TransformerPlan plan;
  for (const ZeroStage stage :
       {ZeroStage::replicated, ZeroStage::zero1, ZeroStage::zero2, ZeroStage::zero3}) {
    plan = plan_stage(request, {stage, stage != ZeroStage::replicated, false});
    const std::string name(stage_name(stage));
    if (plan.fits) {
      plan.why = "auto: " + tried + name + " fits; " + plan.why;
      return plan;
    }
    tried += name + " does not fit (" + plan.why + "); ";
  }
  plan.why = "auto: " + tried + "no stage fits";
  return plan;
}

std::string describe_plan(const TransformerPlan& plan) {
  std::string text = state_sharding_text(plan.sharding);
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const core::RankPlan& r = plan.ranks[i];
    char buf[160];
    std::snprintf(buf, sizeof buf, "; r%zu b=%d m=%d g=%d s=%.3f ", i, r.batch, r.micro_batch,
                  r.accumulation, r.shard_fraction);
    text += buf + core::format_bytes(r.memory_bytes);
  }
  return text + "; " + plan.why;
}

}  // namespace scaletune::kernels
