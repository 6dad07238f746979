#pragma once
// `sharding = "auto"` of a DLRM job: the plan of each such configuration chosen by prediction
// before anything is built (run, trace, predict) or printed (plan --model). The candidates (the
// built-in schemes and the per-table search of kernels/dlrm/sharding_search.hpp) are estimated
// from the model's op and collective times; the kComposedCandidates best estimates are then
// described in full and composed along each rank's critical path as `predict` does, and the
// fastest composed step wins. A configuration too large to describe that often
// (ranks x tables above kComposeLimit) is decided on the estimates alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "autotune/performance_model.hpp"
#include "harness/cli/args.hpp"
#include "harness/core/device.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "harness/results/model_file.hpp"

namespace scaletune::cli {

/// Candidates, best estimates first, that are described and composed.
inline constexpr std::size_t kComposedCandidates = 5;
/// Largest ranks x tables whose candidates are composed (beyond: estimates only).
inline constexpr std::int64_t kComposeLimit = 8192;

/// What the choice is made with.
struct ShardingModel {
  const autotune::PerformanceModel& model;
  std::string path;  ///< the model file, for the reason text
  core::DeviceKind target = core::DeviceKind::host;
  const core::WorkloadEntry& workload;  ///< the dlrm registry entry
};

/// The model file `path` for `sharding = "auto"` of `job`. Throws results::ResultError naming
/// the file, what is wrong with it and the job it is the model of.
results::ModelSet read_sharding_model(const job::JobSpec& job, const std::string& path);

/// `config` with sharding "auto" placed as `plan` (a choice holding only the plan).
job::Config placed(const job::Config& config, const job::ExplicitPlan& plan);

/// The model file for `sharding = "auto"`: --model when given, else the job's [predict] model
/// ("" when neither).
std::string sharding_model_path(const Args& args, const job::JobSpec& job);

/// Whether some configuration has sharding "auto".
bool has_auto_sharding(const std::vector<job::Config>& configs);

/// The choice for one configuration of a dlrm job (any sharding value; the candidates depend on
/// its ranks, batch split and precision): every candidate with its estimate and, for the composed
/// ones, its predicted step (job::ShardingCandidate), fastest first. A configuration whose split
/// is chosen at run time (proportional, auto) or whose rank count the model cannot time gets a
/// choice with `error` set (so does one the workload cannot take: its std::invalid_argument).
/// Throws autotune::MissingModel when the model lacks an op kind the
/// step needs (bad input of the whole command).
job::ShardingChoice choose_sharding(const job::JobSpec& job, const job::Config& config,
                                    const ShardingModel& model);

/// Gives every configuration with sharding "auto" its choice (choose_sharding) with `model`.
/// Throws autotune::MissingModel as choose_sharding.
void choose_auto_shardings(const job::JobSpec& job, std::vector<job::Config>& configs,
                           const ShardingModel& model);

/// Reads `model_path`, then gives every configuration with sharding "auto" its choice, and returns
/// a warning when the model was fitted on another device kind than `target` ("" otherwise, and
/// without "auto"). Throws UsageError when some configuration is "auto" and `model_path` is
/// empty, results::ResultError for a model file that cannot be read, autotune::MissingModel as
/// choose_sharding.
std::string choose_auto_shardings(const job::JobSpec& job, std::vector<job::Config>& configs,
                                  const std::string& model_path, core::DeviceKind target,
                                  const core::WorkloadEntry& workload);

}  // namespace scaletune::cli
