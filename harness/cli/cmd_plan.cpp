// scaletune plan JOB.toml [--world N]
#include <iostream>

#include "harness/cli/args.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_format.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"

namespace scaletune::cli {

int plan_command(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv, 2, "plan", {"--world"}, {});
    expect_positionals(args, 1, 1, "scaletune plan JOB.toml [--world N]");
    const int world =
        args.options.contains("--world") ? parse_rank_count("--world", args.option("--world")) : 0;
    const job::JobSpec spec = job::parse_job_file(args.positional.front());
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
