#pragma once
// One function per subcommand; each returns the process exit status (commands.hpp ExitCode).
// argv[1] is the subcommand's name.

namespace scaletune::cli {

/// scaletune run JOB.toml [--out FILE.h5] [--resume] [--ranks K,...]: initialises MPI, runs
/// the sweep (or the configurations of the listed rank counts).
int run_command(int argc, char** argv);
/// scaletune plan JOB.toml [--world N]: prints the expanded configurations; with --slurm DIR
/// writes Slurm batch scripts (slurm_plan.hpp).
int plan_command(int argc, char** argv);
/// scaletune inspect FILE.h5: prints the configuration table and the /collectives rows.
int inspect_command(int argc, char** argv);
/// scaletune autotune FILE.h5... [--objective NAME] [--report FILE.md] [--prices FILE.toml]
/// [--train-samples N] [--weights NAME=W,...]: metrics, fits, recommendation, ranking, plots.
int autotune_command(int argc, char** argv);
/// scaletune import nccl-tests|osu LOG... --out FILE.h5 [--ranks N]: stores the logs' rows in
/// /collectives of a new or an existing result file; scaletune import mlperf FILE.csv --out
/// FILE.h5: one configuration per MLPerf Training result row.
int import_command(int argc, char** argv);
/// scaletune trace JOB.toml [--world N] [--ops] [--device host|cuda]: each rank's ops and
/// collectives of one step of every configuration, described without running it.
int trace_command(int argc, char** argv);
/// scaletune profile [--out PROFILE.h5] [--jobs JOB.toml,...]: under mpirun/srun, times every
/// op kind over a grid of shapes (and the jobs' own) on each rank's device into /ops, then the
/// collectives on 2..W ranks into /collectives.
int profile_command(int argc, char** argv);
/// scaletune fit PROFILE.h5... --out MODEL.h5: op and collective models with their held-out
/// errors.
int fit_command(int argc, char** argv);
/// scaletune predict JOB.toml --model MODEL.h5 [--world N] [--out PRED.h5] [--compare
/// RESULTS.h5,...] [--device host|cuda]: each configuration's step time along its ranks'
/// critical paths.
int predict_command(int argc, char** argv);
/// scaletune export-timeline FILE.h5 [--config ID] --out trace.json: the stored timelines of a
/// result file (/configs/<id>/timeline) or a predictions file in the Chrome trace format.
int export_timeline_command(int argc, char** argv);

}  // namespace scaletune::cli
