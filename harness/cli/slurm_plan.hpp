#pragma once
// scaletune plan JOB.toml --slurm DIR: the job's sweep as Slurm batch scripts.

#include <ostream>
#include <set>
#include <string>

#include "harness/cli/args.hpp"
#include "harness/job/job.hpp"

namespace scaletune::cli {

/// The options of `scaletune plan` that shape batch scripts (each overrides its [slurm] key).
inline const std::set<std::string> kSlurmOptions = {"--slurm",
                                                    "--nodes",
                                                    "--gpus-per-node",
                                                    "--tasks-per-node",
                                                    "--cpus-per-task",
                                                    "--partition",
                                                    "--account",
                                                    "--time",
                                                    "--launcher",
                                                    "--env",
                                                    "--srun-args",
                                                    "--sbatch-args",
                                                    "--gpus-option",
                                                    "--cpus-per-node",
                                                    "--container-image",
                                                    "--container-mounts",
                                                    "--container-workdir"};

/// Writes the batch scripts of `spec` (slurm::batch_scripts) into the folder of --slurm
/// (created; each script written whole through a temporary file) for the job file `job_path`
/// and this executable, and prints each file and how to submit it to `out`. Throws UsageError
/// for a bad option value (naming it), a rank count the allocation cannot hold, or a folder that
/// cannot be written.
void write_slurm_scripts(const job::JobSpec& spec, const std::string& job_path, const Args& args,
                         std::ostream& out);

}  // namespace scaletune::cli
