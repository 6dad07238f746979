#include "kernels/transformer/transformer_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "harness/core/memory_budget.hpp"
#include "harness/job/batch_split.hpp"
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
  if ((profiled || !request.profiles.empty()) && request.profiles.size() != n)
    throw std::invalid_argument(
        "plan_transformer: a proportional or auto split needs one profile per rank, and given "
        "profiles must be one per rank; got " +
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
  const std::vector<int>& batch = request.per_rank_batch;
  std::vector<int> micro = batch;
  std::vector<double> fractions = shard_fractions(cap, model, micro);
  for (int r; !all_fit(cap, model, fractions, micro) &&
              (r = rank_to_shrink(cap, model, fractions, micro)) >= 0;) {
    auto& m = micro[static_cast<std::size_t>(r)];
    m = next_smaller_divisor(batch[static_cast<std::size_t>(r)], m);
    fractions = shard_fractions(cap, model, micro);
  }
  TransformerPlan plan;
  for (std::size_t i = 0; i < cap.size(); ++i)
    plan.ranks.push_back({batch[i], micro[i], batch[i] / micro[i], fractions[i], 0.0, 0});
  plan.why =
      "batch split as configured; each micro-batch the largest divisor of the rank's batch that "
      "fits";
  return plan;
}

// Time of m samples at a constant `speed` (samples/s): what "proportional" plans with.
core::RankProfile linear_profile(double speed, int largest) {
  return {{1, std::max(2, largest)}, {1.0 / speed, std::max(2, largest) / speed}, 0, {}};
}

// The planner on the profiles ("auto") or on constant speeds ("proportional": batches in
// proportion to samples/s); zero2 and zero3 get the same accumulation on every rank.
TransformerPlan plan_by_speed(const TransformerPlanRequest& request, const core::MemoryModel& model,
                              ZeroStage stage) {
  std::vector<core::RankProfile> profiles = request.profiles;
  const std::vector<double> speed = profiled_speeds(request.profiles);
  if (!request.auto_split)
    for (std::size_t i = 0; i < profiles.size(); ++i)
      profiles[i] = linear_profile(speed[i], request.global_batch);
  const std::vector<std::int64_t> cap = capacities(request);
  for (std::size_t i = 0; i < profiles.size(); ++i) profiles[i].capacity_bytes = cap[i];
  const bool lockstep = stage == ZeroStage::zero2 || stage == ZeroStage::zero3;
  const core::HeteroPlan hetero =
      lockstep ? core::plan_heterogeneous_lockstep(profiles, model, request.global_batch)
               : core::plan_heterogeneous(profiles, model, request.global_batch);
  TransformerPlan plan;
  plan.ranks = hetero.ranks;
  plan.why = request.auto_split
                 ? "batch, micro-batches and shards chosen for the least step time"
                 : "batch split in proportion to measured samples/s (" + speeds_text(speed) + ")";
  return plan;
}

// The even split (the remainder of a batch the ranks do not divide to the first ranks), each
// micro-batch the largest divisor of the rank's batch that fits: what a profiled split plans
// when the measured speeds cannot be told apart.
TransformerPlan plan_as_even(const TransformerPlanRequest& request, const core::MemoryModel& model,
                             const SpeedContrast& contrast) {
  TransformerPlanRequest even = request;
  even.per_rank_batch = job::weighted_split(
      request.global_batch, std::vector<double>(request.capacity_bytes.size(), 1.0));
  TransformerPlan plan = plan_fixed_split(even, model);
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "the ranks' measured speeds (%s samples/s) differ by %.1f%%, within their "
                "profiles' spread of %.1f%%: planned as even",
                speeds_text(profiled_speeds(request.profiles)).c_str(), 100 * contrast.difference,
                100 * contrast.spread);
  plan.why = buf;
  return plan;
}

// plan_by_speed, or the even split when the speeds cannot be told apart.
TransformerPlan plan_profiled_split(const TransformerPlanRequest& request,
                                    const core::MemoryModel& model, ZeroStage stage) {
  const SpeedContrast contrast = speed_contrast(request.profiles);
  return contrast.distinguishable() ? plan_by_speed(request, model, stage)
                                    : plan_as_even(request, model, contrast);
}

// Each rank's step_time_s from its profile (core::step_time_s). Throws std::invalid_argument
// when a micro-batch's time extrapolates to <= 0 s.
void predict_step_times(const TransformerPlanRequest& request, TransformerPlan& plan) {
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    core::RankPlan& r = plan.ranks[i];
    const double micro_s = core::micro_batch_time_s(request.profiles[i], r.micro_batch);
    if (!(micro_s > 0))
      throw std::invalid_argument("profile of rank " + std::to_string(i) +
                                  ": time of micro-batch " + std::to_string(r.micro_batch) +
                                  " extrapolates to " + std::to_string(micro_s) +
                                  " s; measure sizes that cover it");
    r.step_time_s = core::step_time_s(request.profiles[i], r.micro_batch, r.accumulation);
  }
}

std::string plural(int count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "es");
}

// "; rank S limits the step: ...; rank F uses the largest share of its memory: X of Y" from the
// exact memory (and "every rank runs G micro-batches" when they all do).
std::string explanation(const TransformerPlan& plan, const std::vector<std::int64_t>& cap) {
  std::size_t slow = 0, full = 0;
  bool equal = true;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const core::RankPlan& r = plan.ranks[i];
    if (r.step_time_s > plan.ranks[slow].step_time_s) slow = i;
    const auto share = [&](std::size_t k) {
      return static_cast<double>(plan.ranks[k].memory_bytes) / static_cast<double>(cap[k]);
    };
    if (share(i) > share(full)) full = i;
    equal = equal && r.accumulation == plan.ranks.front().accumulation;
  }
  std::string text;
  if (equal && plan.ranks.size() > 1)
    text += "; every rank runs " + plural(plan.ranks.front().accumulation, "micro-batch");
  const core::RankPlan& s = plan.ranks[slow];
  if (s.step_time_s > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "; rank %zu limits the step: %s of %d samples, %.3g s", slow,
                  plural(s.accumulation, "micro-batch").c_str(), s.micro_batch, s.step_time_s);
    text += buf;
  }
  if (cap[full] < kUnlimited)
    text += "; rank " + std::to_string(full) + " uses the largest share of its memory: " +
            core::format_bytes(plan.ranks[full].memory_bytes) + " of " +
            core::format_bytes(cap[full]);
  return text;
}

// Records that rank i needs `needed` bytes of its `cap`, and the shortfall when it is the worst
// so far; `what` describes the need.
void note_need(TransformerPlan& plan, std::size_t i, std::int64_t cap, const std::string& what,
               std::int64_t& worst) {
  const std::int64_t short_by = plan.ranks[i].memory_bytes - cap;
  if (short_by <= 0 || short_by <= worst) return;
  plan.fits = false, worst = short_by;
  plan.why = "the plan does not fit rank " + std::to_string(i) + ": it needs " +
             core::format_bytes(plan.ranks[i].memory_bytes) + " (" + what + ", micro-batch " +
             std::to_string(plan.ranks[i].micro_batch) + "), more than its " +
             core::format_bytes(cap) + ": short by " + core::format_bytes(short_by);
}

// Memory of every rank by a given memory model, whether all fit, and the shortfall when not.
void account_modelled_memory(const TransformerPlanRequest& request, const core::MemoryModel& model,
                             TransformerPlan& plan) {
  const std::vector<std::int64_t> cap = capacities(request);
  plan.fits = true;
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < cap.size(); ++i) {
    core::RankPlan& r = plan.ranks[i];
    r.memory_bytes = std::llround(model_bytes(model, r.shard_fraction, r.micro_batch));
    note_need(plan, i, cap[i], "by the imported memory model", worst);
  }
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
    note_need(plan, i, cap[i], plan.memory[i].describe(), worst);
  }
}

// The request's memory_model for zero3 (its state spread evenly over the ranks' replicated
// bytes without memory_proportional). Throws std::invalid_argument for another stage.
core::MemoryModel given_memory_model(const TransformerPlanRequest& request,
                                     const StateSharding& sharding) {
  if (sharding.stage != ZeroStage::zero3)
    throw std::invalid_argument(
        "an imported memory model describes fully sharded training state (FSDP, ZeRO-3); plan "
        "it with zero3, not " +
        std::string(stage_name(sharding.stage)));
  core::MemoryModel model = *request.memory_model;
  if (!sharding.memory_proportional) {
    model.replicated_bytes +=
        model.state_bytes / static_cast<double>(request.capacity_bytes.size());
    model.state_bytes = 0.0;
  }
  return model;
}

core::MemoryModel memory_model(const TransformerPlanRequest& request,
                               const StateSharding& sharding) {
  if (request.memory_model) return given_memory_model(request, sharding);
  const int n = static_cast<int>(request.capacity_bytes.size());
  return transformer_memory_model(request.shape, sharding.stage, sharding.memory_proportional, n);
}

TransformerPlan plan_stage(const TransformerPlanRequest& request, const StateSharding& sharding) {
  const core::MemoryModel model = memory_model(request, sharding);
  TransformerPlan plan = request.per_rank_batch.empty()
                             ? plan_profiled_split(request, model, sharding.stage)
                             : plan_fixed_split(request, model);
  if (!request.profiles.empty()) predict_step_times(request, plan);
  plan.sharding = sharding;
  plan.memory_model = model;
  for (const core::RankPlan& r : plan.ranks) plan.rounds = std::max(plan.rounds, r.accumulation);
  if (request.memory_model)
    account_modelled_memory(request, model, plan);
  else
    account_memory(request, plan);
  if (plan.fits) plan.why += explanation(plan, capacities(request));
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

SpeedContrast speed_contrast(const std::vector<core::RankProfile>& profiles) {
  if (profiles.empty()) throw std::invalid_argument("speed_contrast: no profiles");
  const std::vector<double> speed = profiled_speeds(profiles);
  SpeedContrast contrast;
  contrast.difference = *std::max_element(speed.begin(), speed.end()) /
                            *std::min_element(speed.begin(), speed.end()) -
                        1.0;
  for (const core::RankProfile& p : profiles)
    if (!p.spread.empty()) contrast.spread = std::max(contrast.spread, p.spread.back());
  return contrast;
}

std::optional<std::vector<core::RankProfile>> corrected_profiles(
    const std::vector<core::RankProfile>& profiles, const std::vector<double>& predicted_s,
    const std::vector<double>& measured_s) {
  const std::size_t n = profiles.size();
  if (predicted_s.size() != n || measured_s.size() != n)
    throw std::invalid_argument("corrected_profiles: " + std::to_string(n) + " profiles, " +
                                std::to_string(predicted_s.size()) + " predictions and " +
                                std::to_string(measured_s.size()) + " measurements");
  std::vector<double> ratio(n);
  double spread = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(predicted_s[i] > 0) || !(measured_s[i] > 0))
      throw std::invalid_argument("corrected_profiles: rank " + std::to_string(i) +
                                  " has a prediction or measurement <= 0 s");
    ratio[i] = measured_s[i] / predicted_s[i];
    for (const double s : profiles[i].spread) spread = std::max(spread, s);
  }
  const auto [low, high] = std::minmax_element(ratio.begin(), ratio.end());
  if (*high / *low - 1.0 <= spread) return std::nullopt;
  std::vector<core::RankProfile> corrected = profiles;
  for (std::size_t i = 0; i < n; ++i)
    for (double& t : corrected[i].time_s) t *= ratio[i];
  return corrected;
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
