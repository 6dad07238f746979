#include "harness/cli/commands.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "harness/cli/build_info.hpp"
#include "harness/cli/subcommands.hpp"

namespace scaletune::cli {

namespace {

constexpr const char* kHelp =
    R"(scaletune: benchmark distributed deep-learning training and tune it.

usage:
  scaletune run JOB.toml [--out FILE.h5] [--resume] [--ranks K,...] [--model MODEL.h5]
                                                      run a sweep (under mpirun/srun; one launch
                                                      covers every rank count <= world size;
                                                      --ranks: only these rank counts; --model:
                                                      the model of sharding = "auto", else the
                                                      job's [predict] model)
  scaletune plan JOB.toml [--world N]                 print the expanded configurations, run nothing
  scaletune plan JOB.toml --model MODEL.h5 [--world N] [--device host|cuda]
                                                      dlrm: the five sharding plans predicted
                                                      fastest for each configuration, and why
  scaletune plan JOB.toml --profiles FILE.h5,... [--devices TYPE,...]
                                                      transformer: the auto split's plan on the
                                                      micro-batch profiles earlier runs stored, for
                                                      a cluster of those device types (default:
                                                      the first profiled configuration's ranks),
                                                      its predicted step time against even's, why
  scaletune plan JOB.toml --slurm DIR [--nodes N] [--gpus-per-node G] [--tasks-per-node T]
                 [--cpus-per-task C] [--partition P] [--account A] [--time T]
                 [--launcher srun|mpirun] [--env "NAME=value ..."]
                 [--srun-args "--opt ..."] [--sbatch-args "--opt ..."]
                 [--gpus-option gpus-per-node|gres] [--cpus-per-node C]
                 [--container-image I] [--container-mounts SRC:DST,...]
                 [--container-workdir W]
                                                      write Slurm batch scripts for the sweep
                                                      (defaults from the job's [slurm] table)
  scaletune inspect FILE.h5                           print a table of configurations and metrics,
                                                      and the collective results (/collectives)
  scaletune autotune FILE.h5... [--objective NAME] [--report FILE.md] [--prices FILE.toml]
                    [--train-samples N] [--weights NAME=W,...]
                                                      fit scaling models and recommend a configuration
                                                      NAME: efficiency_floor (default: the highest
                                                      throughput at scaling efficiency >= 0.7),
                                                      throughput (the highest), efficiency (the
                                                      highest throughput per rank); then rank every
                                                      configuration (TOPSIS), cluster them, mark the
                                                      Pareto front of time to train against
                                                      device-minutes, say which features drive the
                                                      metrics; --report also writes SVG plots beside
                                                      the report (with gnuplot). --prices: price per
                                                      device-hour by accelerator (cost); N: samples
                                                      a measured sweep's time to train stands for
                                                      (default 1281167, one ImageNet epoch)
  scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N]
                                                      read nccl-tests or OSU (osu_bw, osu_latency,
                                                      collective latency tests) logs into the
                                                      /collectives table of FILE.h5 (a new file, or
                                                      appended to an existing result file); --ranks:
                                                      the rank count of nccl-tests logs without
                                                      "# Rank" lines and of OSU collective tables
  scaletune import mlperf FILE.csv --out FILE.h5     read MLPerf Training ResNet-50 results (one row
                                                      per submission) into /configs of FILE.h5, one
                                                      configuration per row; rows repeating an
                                                      earlier round are dropped
  scaletune trace JOB.toml [--world N] [--ops] [--device host|cuda] [--model MODEL.h5]
                                                      each rank's ops and collectives of one step
                                                      of every configuration, described without
                                                      running it (no model allocated, any rank
                                                      count); --world: at N ranks instead of the
                                                      sweep's; --ops: every compute op, not only
                                                      the totals between collectives; --device:
                                                      as on that kind (default: the job's);
                                                      --model: for sharding = "auto"
  scaletune profile [--out PROFILE.h5] [--jobs JOB.toml,...]
                                                      under mpirun/srun: time every op kind the
                                                      workloads use over a grid of shapes (and the
                                                      jobs' own shapes) on each rank's device into
                                                      /ops, then the collectives over sizes on
                                                      2..W ranks into /collectives (default
                                                      results/profile.h5; never overwritten)
  scaletune fit PROFILE.h5... [IMPORTED.h5...] --out MODEL.h5
                                                      fit op models (affine, power law, or power
                                                      law with a kernel-ridge residual in the
                                                      shape, chosen by cross-validation) and
                                                      collective models (three-region curves per
                                                      rank count, alpha-beta across rank counts);
                                                      prints each with its held-out error
  scaletune predict JOB.toml [--model MODEL.h5] [--world N] [--out PRED.h5]
                    [--compare RESULTS.h5,...] [--device host|cuda] [--phases] [--ops]
                                                      predict each configuration's step time
                                                      from its described step along each rank's
                                                      critical path; --compare: against measured
                                                      results, with the geomean error; without
                                                      --model, the job's [predict] model
  scaletune export-timeline FILE.h5 [--config ID] --out trace.json
                                                      the timelines of a result file (run.timeline:
                                                      the median timed iteration, or all) or of a
                                                      predictions file (predict --out) in the Chrome
                                                      trace format (Perfetto, chrome://tracing): a
                                                      compute and a communication track per rank
  scaletune --help | --version

exit status: 0 success, 1 a run that failed (a configuration ended oom, timeout or error),
2 bad usage or bad input (nothing is run or written).
Job-file keys and the result layout: README.md, results/README.md.
)";

const std::map<std::string, std::function<int(int, char**)>>& subcommands() {
  static const std::map<std::string, std::function<int(int, char**)>> table = {
      {"run", run_command},         {"plan", plan_command},
      {"inspect", inspect_command}, {"autotune", autotune_command},
      {"import", import_command},   {"trace", trace_command},
      {"profile", profile_command}, {"fit", fit_command},
      {"predict", predict_command}, {"export-timeline", export_timeline_command}};
  return table;
}

/// Makes standard error line-buffered, so that each message leaves the process in one write:
/// mpirun and srun forward a rank's stdout and stderr separately, and a line written in pieces
/// (std::cerr flushes after every <<) came out interleaved with the progress lines on stdout.
void write_whole_lines_to_stderr() {
  std::setvbuf(stderr, nullptr, _IOLBF, BUFSIZ);
  std::cerr.unsetf(std::ios_base::unitbuf);
}

/// Flushes standard output; false, after saying so on standard error, when some of it could not
/// be written (a full disk, a closed pipe): the command's output is then incomplete.
bool output_written(const std::string& command) {
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return true;
  std::cerr << "scaletune " << command
            << ": standard output could not be written (a full disk or a closed pipe); the "
               "output is incomplete\n";
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  write_whole_lines_to_stderr();
  const std::string first = argc >= 2 ? argv[1] : "";
  const bool alone = argc == 2;
  if (alone && (first == "--help" || first == "-h" || first == "help")) {
    std::cout << kHelp;
    return kOk;
  }
  if (argc >= 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h") &&
      subcommands().contains(first)) {
    std::cout << kHelp;
    return kOk;
  }
  if (alone && first == "--version") {
    std::cout << "scaletune " << scaletune_version() << " (git " << git_sha() << ", "
              << build_type() << ")\n";
    return kOk;
  }
  if (first == "--help" || first == "--version") {
    std::cerr << "scaletune: " << first << " takes no arguments\n";
    return kBadInput;
  }
  const auto it = subcommands().find(first);
  if (it == subcommands().end()) {
    std::cerr << "scaletune: "
              << (first.empty() ? "no command given" : "unknown command '" + first + "'")
              << "; expected one of run, plan, inspect, autotune, import, trace, profile, fit, "
                 "predict, export-timeline, --help, --version\n";
    return kBadInput;
  }
  const int status = it->second(argc, argv);
  return output_written(first) ? status : std::max<int>(status, kRunFailed);
}

}  // namespace scaletune::cli
