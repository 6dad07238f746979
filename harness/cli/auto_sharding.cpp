// The plan of `sharding = "auto"`, chosen by prediction.

#include "harness/cli/auto_sharding.hpp"
#include "harness/cli/described_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>

#include "autotune/critical_path.hpp"
#include "harness/cli/commands.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/result_error.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/dlrm/shard_costs.hpp"
#include "kernels/dlrm/sharding_choice.hpp"
#include "kernels/dlrm/sharding_search.hpp"

namespace scaletune::cli {
namespace {

kernels::StepCostModel cost_model(const autotune::PerformanceModel& model) {
  return {[&model](const trace::ComputeOp& op) { return model.op_time_s(op); },
          [&model](const trace::Collective& c) { return model.collective_time_s(c); }};
}

/// The step of `config` placed as `plan`, composed with the model, s; 0 when the plan does not
/// fit the ranks' memory budget.
double composed_step(const job::JobSpec& job, const job::Config& config,
                     const job::ExplicitPlan& plan, const ShardingModel& m) {
  try {
    const std::vector<trace::RankTrace> ranks =
        kernels::describe::describe_ranks(job, placed(config, plan), m.target, m.workload);
    return autotune::compose_step(
               ranks, [&](const trace::ComputeOp& op) { return m.model.op_time_s(op); },
               [&](const trace::Collective& c) { return m.model.collective_time_s(c); })
        .step_time_s;
  } catch (const core::MemoryBudgetExceeded&) {
    return 0.0;
  }
}

std::string percent(double a, double b) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * (b / a - 1.0));
  return text;
}

std::string milliseconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", 1e3 * s);
  return text;
}

/// Whether two plans place every table alike (split and ranks).
bool same_placement(const job::ExplicitPlan& a, const job::ExplicitPlan& b) {
  return std::equal(a.tables.begin(), a.tables.end(), b.tables.begin(), b.tables.end(),
                    [](const job::TablePlacement& x, const job::TablePlacement& y) {
                      return x.split == y.split && x.ranks == y.ranks;
                    });
}

/// Ranks x tables: how much describing one candidate costs.
std::int64_t compose_size(const job::Config& config, const job::DlrmOptions& options) {
  return static_cast<std::int64_t>(config.ranks) * static_cast<std::int64_t>(options.tables.size());
}

/// Why the built-in candidate `chosen` runs although the search's plan (the first) is predicted
/// faster.
std::string margin_text(const job::ShardingChoice& c, std::size_t chosen, bool composed) {
  const job::ShardingCandidate& search = c.candidates.front();
  const job::ShardingCandidate& runs = c.candidates[chosen];
  const double a = composed ? search.step_s : search.embedding_s;
  const double b = composed ? runs.step_s : runs.embedding_s;
  return ", " + percent(a, b) + " ahead of " + runs.name + " " + milliseconds(b) +
         ": less than the " + std::to_string(std::lround(100 * kernels::kSearchMargin)) +
         "% a searched plan must lead the built-in sharders by (its lead gains from the model's "
         "errors), so " +
         runs.name + " runs";
}

/// The reason line of a choice whose candidates are in their final order and whose candidate
/// `chosen` runs.
std::string reason_of(const job::ShardingChoice& c, std::size_t chosen, std::size_t composed,
                      const ShardingModel& m, std::int64_t size) {
  const job::ShardingCandidate& best = c.candidates.front();
  std::string text = "predicted fastest of " + std::to_string(c.candidates.size()) +
                     " candidate plans with " + m.path + ": ";
  if (composed > 0)
    text += "the " + std::to_string(composed) +
            " best estimates composed along each rank's critical path, " + best.name + " " +
            milliseconds(best.step_s) + " per step";
  else
    text += "estimates of the plan-dependent part only (" +
            (size > kComposeLimit ? "ranks x tables = " + std::to_string(size) + " is above " +
                                        std::to_string(kComposeLimit)
                                  : std::string("no composed candidate fits the ranks' memory")) +
            "), " + best.name + " " + milliseconds(best.embedding_s);
  if (chosen != 0) return text + margin_text(c, chosen, composed > 0);
  const auto other = std::find_if(
      c.candidates.begin() + 1, c.candidates.end(),
      [&](const job::ShardingCandidate& x) { return !same_placement(x.plan, best.plan); });
  if (other == c.candidates.end()) return text + "; every candidate places the tables alike";
  const job::ShardingCandidate& next = *other;
  const bool both = next.step_s > 0 && best.step_s > 0;
  return text + ", " +
         percent(both ? best.step_s : best.embedding_s, both ? next.step_s : next.embedding_s) +
         " ahead of " + next.name;
}

/// Composes the first `count` candidates and puts the fitting composed ones first, by step;
/// returns how many were composed and fit.
std::size_t compose_best(std::vector<job::ShardingCandidate>& candidates, std::size_t count,
                         const job::JobSpec& job, const job::Config& config,
                         const ShardingModel& m) {
  count = std::min(count, candidates.size());
  for (std::size_t i = 0; i < count; ++i)
    candidates[i].step_s = composed_step(job, config, candidates[i].plan, m);
  const auto composed_end =
      std::stable_partition(candidates.begin(), candidates.begin() + static_cast<long>(count),
                            [](const job::ShardingCandidate& c) { return c.step_s > 0; });
  std::stable_sort(candidates.begin(), composed_end,
                   [](const auto& a, const auto& b) { return a.step_s < b.step_s; });
  return static_cast<std::size_t>(composed_end - candidates.begin());
}

/// The candidates of choose_sharding, ordered, and how many were composed.
std::size_t rank_candidates(job::ShardingChoice& choice, const job::JobSpec& job,
                            const job::Config& config, const ShardingModel& m) {
  const job::DlrmOptions& options = job.workload.dlrm;
  const kernels::StepCostModel costs_model = cost_model(m.model);
  const std::vector<kernels::TableCosts> costs =
      kernels::table_costs(options, config.per_rank_batch, config.precision, job.run.seed,
                           job.comm.bucket_mib * 1024.0 * 1024.0, costs_model);
  for (kernels::PlanEstimate& e :
       kernels::sharding_candidates(costs, options, config.per_rank_batch, costs_model))
    choice.candidates.push_back({e.name, std::move(e.placement), e.embedding_s, 0.0});
  return compose_size(config, options) <= kComposeLimit
             ? compose_best(choice.candidates, kComposedCandidates, job, config, m)
             : 0;
}

}  // namespace

results::ModelSet read_sharding_model(const job::JobSpec& job, const std::string& path) {
  try {
    return results::read_model_file(path);
  } catch (const results::ResultError& e) {
    throw results::ResultError(std::string(e.what()) + " (the performance model of sharding = " +
                               "\"auto\" in " + job.path + ": --model, else its [predict] model)");
  }
}

job::Config placed(const job::Config& config, const job::ExplicitPlan& plan) {
  job::Config c = config;
  auto choice = std::make_shared<job::ShardingChoice>();
  choice->plan = plan;
  c.sharding = job::DlrmSharding{job::ShardingScheme::automatic, "", std::move(choice)};
  return c;
}

std::string sharding_model_path(const Args& args, const job::JobSpec& job) {
  return args.option("--model", job.predict.model);
}

bool has_auto_sharding(const std::vector<job::Config>& configs) {
  return std::ranges::any_of(configs, [](const job::Config& c) {
    const auto* s = std::get_if<job::DlrmSharding>(&c.sharding);
    return s != nullptr && s->scheme == job::ShardingScheme::automatic;
  });
}

job::ShardingChoice choose_sharding(const job::JobSpec& job, const job::Config& config,
                                    const ShardingModel& m) {
  job::ShardingChoice choice;
  if (config.per_rank_batch.empty()) {
    choice.error = "batch_split '" + config.batch_split +
                   "' is chosen at run time; sharding = \"auto\" needs a split known before the "
                   "run (even or a weight list)";
    return choice;
  }
  std::size_t composed = 0;
  try {
    composed = rank_candidates(choice, job, config, m);
  } catch (const autotune::MissingCollectiveModel& e) {
    choice.error = e.what();
  } catch (const autotune::MissingModel&) {
    throw;  // an op kind the model lacks: bad input of the whole command
  } catch (const std::invalid_argument& e) {  // settings the workload cannot take
    choice.error = e.what();
  }
  if (!choice.error.empty()) {
    choice.candidates.clear();
    return choice;
  }
  const std::size_t chosen = kernels::chosen_candidate(choice.candidates, composed);
  choice.plan = choice.candidates[chosen].plan;
  choice.chosen = choice.candidates[chosen].name;
  choice.reason = reason_of(choice, chosen, composed, m, compose_size(config, job.workload.dlrm));
  return choice;
}

void choose_auto_shardings(const job::JobSpec& job, std::vector<job::Config>& configs,
                           const ShardingModel& m) {
  for (job::Config& config : configs) {
    auto* sharding = std::get_if<job::DlrmSharding>(&config.sharding);
    if (sharding == nullptr || sharding->scheme != job::ShardingScheme::automatic) continue;
    sharding->choice = std::make_shared<const job::ShardingChoice>(choose_sharding(job, config, m));
  }
}

std::string choose_auto_shardings(const job::JobSpec& job, std::vector<job::Config>& configs,
                                  const std::string& model_path, core::DeviceKind target,
                                  const core::WorkloadEntry& workload) {
  if (!has_auto_sharding(configs)) return "";
  if (model_path.empty())
    throw UsageError(job.path +
                     ": sharding = \"auto\" needs a performance model: add [predict] model = "
                     "\"MODEL.h5\" to the job file or give --model MODEL.h5 (scaletune profile, "
                     "then scaletune fit, make one)");
  const autotune::PerformanceModel model =
      job_performance_model(read_sharding_model(job, model_path), job);
  naming_model_file(model_path, [&] {
    choose_auto_shardings(job, configs, ShardingModel{model, model_path, target, workload});
  });
  const std::string kind(job::device_kind_text(target));
  if (model.device_kind().empty() || model.device_kind() == kind) return "";
  return "warning: the sharding model " + model_path + " was fitted on " + model.device_kind() +
         " devices; the job runs on " + kind + " devices";
}

}  // namespace scaletune::cli
