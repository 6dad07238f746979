// scaletune plan JOB.toml [--world N] [--model MODEL.h5 [--device host|cuda]]
//                | [--profiles FILE.h5,... [--devices TYPE,...]]
//                | [--slurm DIR [--nodes N] [--gpus-per-node G] ...]
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <tuple>

#include "autotune/performance_model.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/auto_sharding.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/described_job.hpp"
#include "harness/cli/profile_planning.hpp"
#include "harness/cli/slurm_plan.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_format.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/result_error.hpp"
#include "kernels/dlrm/sharding_plan.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage =
    "scaletune plan JOB.toml [--world N] [--model MODEL.h5 [--device host|cuda]] | scaletune plan "
    "JOB.toml --profiles FILE.h5,... [--devices TYPE,...] | scaletune plan JOB.toml --slurm DIR "
    "[--nodes N] "
    "[--gpus-per-node G] [--tasks-per-node T] [--cpus-per-task C] [--partition P] [--account A] "
    "[--time T] [--launcher srun|mpirun] [--env \"NAME=value ...\"] [--srun-args \"--opt ...\"] "
    "[--sbatch-args \"--opt ...\"] [--gpus-option gpus-per-node|gres] [--cpus-per-node C] "
    "[--container-image I] [--container-mounts SRC:DST,...] [--container-workdir W]";

/// Plan texts longer than this are cut in the listing.
constexpr std::size_t kPlanTextShown = 160;

/// --profiles goes alone (but for --devices, which needs it).
void expect_profiles_alone(const Args& args) {
  const bool profiles = args.options.contains("--profiles");
  if (args.options.contains("--devices") && !profiles)
    throw UsageError("--devices picks the profiled devices to plan for: give --profiles too");
  if (!profiles) return;
  for (const char* other : {"--slurm", "--model", "--world"})
    if (args.options.contains(other))
      throw UsageError(std::string("--profiles and ") + other +
                       " do not go together: --profiles plans the cluster of --devices");
}

/// plan --profiles: the auto split on stored profiles, against even.
int print_stored_profile_plans(const Args& args) {
  const job::JobSpec spec = job::parse_job_file(args.positional.front());
  const StoredProfiles stored =
      read_stored_profiles(file_list("--profiles", args.option("--profiles")));
  std::vector<std::string> devices;
  if (args.options.contains("--devices"))
    devices = item_list("--devices", args.option("--devices"), "TYPE[,TYPE...]");
  print_profiled_plans(spec, stored, cluster_devices(stored, devices), std::cout);
  return kOk;
}

/// The batch-script options need --slurm, and --world and --model do not go with it.
void expect_slurm_with_its_options(const Args& args) {
  const bool slurm = args.options.contains("--slurm");
  if (slurm && args.options.contains("--world"))
    throw UsageError(
        "--world and --slurm do not go together: the scripts' allocation sets the "
        "world size");
  if (slurm && args.options.contains("--model"))
    throw UsageError("--model and --slurm do not go together: --model predicts sharding plans");
  if (args.options.contains("--device") && !args.options.contains("--model"))
    throw UsageError("--device picks the devices plans are predicted for: give --model too");
  if (slurm) return;
  for (const std::string& option : kSlurmOptions)
    if (args.options.contains(option))
      throw UsageError(option + " shapes batch scripts: give --slurm DIR too");
}

std::string plan_text(const job::JobSpec& job, const job::Config& config,
                      const job::ExplicitPlan& plan) {
  const job::Config c = placed(config, plan);
  std::string text =
      kernels::describe_plan(kernels::make_sharding_plan(std::get<job::DlrmSharding>(c.sharding),
                                                         job.workload.dlrm, c.ranks),
                             job.workload.dlrm);
  if (text.size() > kPlanTextShown) text = text.substr(0, kPlanTextShown) + " ...";
  return text;
}

void print_choice(const job::JobSpec& job, const job::Config& config,
                  const job::ShardingChoice& choice) {
  std::printf("# %d ranks, global batch %d, %s, %s: ", config.ranks, config.global_batch,
              config.batch_split.c_str(),
              std::string(job::data_type_text(config.precision)).c_str());
  if (!choice.error.empty()) {
    std::printf("not predicted: %s\n", choice.error.c_str());
    return;
  }
  std::printf("%s\n%4s  %-30s %12s %16s  %s\n", choice.reason.c_str(), "top", "candidate",
              "step (ms)", "embedding (ms)", "plan");
  for (std::size_t i = 0; i < choice.candidates.size() && i < kComposedCandidates; ++i) {
    const job::ShardingCandidate& c = choice.candidates[i];
    char step[32] = "-";
    if (c.step_s > 0) std::snprintf(step, sizeof step, "%.3f", 1e3 * c.step_s);
    std::printf("%4zu  %-30s %12s %16.3f  %s\n", i + 1, c.name.c_str(), step, 1e3 * c.embedding_s,
                plan_text(job, config, c.plan).c_str());
  }
}

/// The expanded configurations; a note when sharding "auto" has no model to run with.
void print_plan(const job::JobSpec& spec, int world) {
  const std::vector<job::Config> configs = job::expand_sweep(spec);
  std::cout << job::format_plan(spec, configs, world);
  if (has_auto_sharding(configs) && spec.predict.model.empty())
    std::cerr << "scaletune plan: warning: sharding = \"auto\" needs a performance model to run: "
                 "add [predict] model = \"MODEL.h5\" or give run --model MODEL.h5\n";
}

/// plan --model: the predicted top five sharding plans of each distinct (ranks, batch split,
/// precision) of a dlrm job (at --world N ranks when given); exit 1 when one could not be
/// predicted.
int print_predicted_plans(const Args& args) {
  const DescribedJob d = load_described_job(args);
  if (d.job.workload.kind != "dlrm")
    throw UsageError(
        "--model predicts embedding sharding plans: only for workload kind dlrm, not " +
        d.job.workload.kind);
  const autotune::PerformanceModel model =
      job_performance_model(read_sharding_model(d.job, args.option("--model")), d.job);
  if (!model.device_kind().empty() && model.device_kind() != d.target_name())
    std::cerr << "scaletune plan: warning: the model was fitted on " << model.device_kind()
              << " devices; the plans are predicted for " << d.target_name() << " devices\n";
  const ShardingModel m{model, args.option("--model"), d.target, d.workload()};
  const Kokkos::ScopeGuard kokkos;  // the composed candidates draw their inputs in host views
  std::set<std::tuple<int, std::vector<int>, job::DataType>> seen;
  bool failed = false;
  for (const job::Config& config : d.configs)
    if (seen.insert({config.ranks, config.per_rank_batch, config.precision}).second) {
      const job::ShardingChoice choice = choose_sharding(d.job, config, m);
      failed = failed || !choice.error.empty();
      print_choice(d.job, config, choice);
    }
  return failed ? kRunFailed : kOk;
}

/// scaletune plan, its bad input thrown (the command reports it).
int plan_unguarded(int argc, char** argv) {
  std::set<std::string> options = kSlurmOptions;
  options.insert({"--world", "--model", "--device", "--profiles", "--devices"});
  const Args args = parse_args(argc, argv, 2, "plan", options, {});
  expect_positionals(args, 1, 1, kUsage);
  expect_profiles_alone(args);
  expect_slurm_with_its_options(args);
  if (args.options.contains("--profiles")) return print_stored_profile_plans(args);
  if (args.options.contains("--model")) return print_predicted_plans(args);
  const int world =
      args.options.contains("--world") ? parse_rank_count("--world", args.option("--world")) : 0;
  const job::JobSpec spec = job::parse_job_file(args.positional.front());
  if (args.options.contains("--slurm"))
    write_slurm_scripts(spec, args.positional.front(), args, std::cout);
  else
    print_plan(spec, world);
  return kOk;
}

}  // namespace

int plan_command(int argc, char** argv) {
  return guard_bad_input<UsageError, job::JobError, results::ResultError, autotune::MissingModel>(
      "plan", [&] { return plan_unguarded(argc, argv); });
}

}  // namespace scaletune::cli
