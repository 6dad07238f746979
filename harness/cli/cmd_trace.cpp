// scaletune trace JOB.toml [--world N] [--ops] [--device host|cuda] [--model MODEL.h5]
#include <Kokkos_Core.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "harness/cli/args.hpp"
#include "harness/cli/auto_sharding.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/described_job.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/job/job_error.hpp"
#include "harness/results/result_error.hpp"
#include "harness/trace/trace_format.hpp"
#include "kernels/describe/step_description.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage =
    "scaletune trace JOB.toml [--world N] [--ops] [--device host|cuda] [--model MODEL.h5]";

/// scaletune trace, its bad input thrown (the command reports it).
int trace_unguarded(int argc, char** argv) {
  const Args args =
      parse_args(argc, argv, 2, "trace", {"--world", "--device", "--model"}, {"--ops"});
  expect_positionals(args, 1, 1, kUsage);
  DescribedJob described = load_described_job(args);
  const auto detail =
      args.flags.contains("--ops") ? trace::TraceDetail::ops : trace::TraceDetail::collectives;
  const Kokkos::ScopeGuard kokkos;  // workloads draw their inputs in host views
  const std::string warning = choose_auto_shardings(described.job, described.configs,
                                                    sharding_model_path(args, described.job),
                                                    described.target, described.workload());
  if (!warning.empty()) std::cerr << "scaletune trace: " << warning << "\n";
  int failed = 0;
  for (const job::Config& config : described.configs) {
    try {
      const std::vector<trace::RankTrace> ranks = kernels::describe::describe_ranks(
          described.job, config, described.target, described.workload());
      std::cout << trace::format_trace(config.id, described.target_name(), ranks, detail);
    } catch (const std::exception& e) {
      ++failed;
      std::cout << "# " << config.id << ": not described: " << e.what() << "\n";
    }
  }
  return failed == 0 ? kOk : kRunFailed;
}

}  // namespace

int trace_command(int argc, char** argv) {
  return guard_bad_input<UsageError, job::JobError, results::ResultError, autotune::MissingModel>(
      "trace", [&] { return trace_unguarded(argc, argv); });
}

}  // namespace scaletune::cli
