// scaletune plan JOB.toml [--world N] | [--slurm DIR [--nodes N] [--gpus-per-node G] ...]
#include <iostream>
#include <set>
#include <string>

#include "harness/cli/args.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/slurm_plan.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_format.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage =
    "scaletune plan JOB.toml [--world N] | scaletune plan JOB.toml --slurm DIR [--nodes N] "
    "[--gpus-per-node G] [--tasks-per-node T] [--cpus-per-task C] [--partition P] [--account A] "
    "[--time T] [--launcher srun|mpirun]";

/// The batch-script options need --slurm, and --world does not go with it.
void expect_slurm_with_its_options(const Args& args) {
  const bool slurm = args.options.contains("--slurm");
  if (slurm && args.options.contains("--world"))
    throw UsageError(
        "--world and --slurm do not go together: the scripts' allocation sets the "
        "world size");
  if (slurm) return;
  for (const std::string& option : kSlurmOptions)
    if (args.options.contains(option))
      throw UsageError(option + " shapes batch scripts: give --slurm DIR too");
}

}  // namespace

int plan_command(int argc, char** argv) {
  try {
    std::set<std::string> options = kSlurmOptions;
    options.insert("--world");
    const Args args = parse_args(argc, argv, 2, "plan", options, {});
    expect_positionals(args, 1, 1, kUsage);
    expect_slurm_with_its_options(args);
    const int world =
        args.options.contains("--world") ? parse_rank_count("--world", args.option("--world")) : 0;
    const job::JobSpec spec = job::parse_job_file(args.positional.front());
    if (args.options.contains("--slurm"))
      write_slurm_scripts(spec, args.positional.front(), args, std::cout);
    else
      std::cout << job::format_plan(spec, job::expand_sweep(spec), world);
    return kOk;
  } catch (const UsageError& e) {
    std::cerr << "scaletune plan: " << e.what() << "\n";
  } catch (const job::JobError& e) {
    std::cerr << "scaletune plan: " << e.what() << "\n";
  }
  return kBadInput;
}

}  // namespace scaletune::cli
