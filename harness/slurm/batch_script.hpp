#pragma once
// Slurm batch scripts that run a job's sweep: one allocation for every rank count that takes
// whole nodes (or part of one), one more for each count that would split unevenly over nodes.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::slurm {

/// Everything a batch script needs: the job's [slurm] table with the command line's options
/// applied and the defaults resolved (resolve()).
struct SlurmSettings {
  int nodes = 0;           ///< nodes of the largest allocation; 0: as many as it needs
  int gpus_per_node = 8;   ///< --gpus-per-node; 0: no GPU request (CPU ranks)
  int tasks_per_node = 8;  ///< ranks per node (--ntasks-per-node), >= 1
  int cpus_per_task = 1;   ///< --cpus-per-task, >= 1
  int cpus_per_node = 0;   ///< the node's CPU cores as the job states them; 0: not stated
  std::string partition, account, time;  ///< empty: not written (the cluster's default)
  std::string launcher = "srun";         ///< "srun" (srun --mpi=pmix) or "mpirun"
  std::string nccl_socket_ifname;        ///< exported when not empty
  std::string nccl_debug;                ///< exported when not empty
  /// exported in this order after the NCCL settings (names and values checked by the job parser
  /// or the command line: job::is_environment_name, job::is_environment_value)
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> srun_args;         ///< extra srun options (job::is_slurm_option)
  std::vector<std::string> sbatch_args;       ///< extra #SBATCH lines (job::is_slurm_option)
  bool gres = false;                          ///< GPUs as --gres=gpu:G, not --gpus-per-node=G
  bool preflight = true;                      ///< the preflight step before the launch
  std::string container_image;                ///< srun --container-image (pyxis); empty: none
  std::vector<std::string> container_mounts;  ///< srun --container-mounts, joined by commas
  std::string container_workdir;              ///< srun --container-workdir; empty: not given
  std::string job_name;                       ///< --job-name: the job's [job] name
  std::string scaletune = "scaletune";        ///< the command the script runs
  std::string job_file;                       ///< the job file as the script names it
  std::string out_file;                       ///< the result file every script writes (--resume)
};

/// The settings of a [slurm] table (the job file's, with any command-line options already
/// applied): gpus_per_node 8 when unset, tasks_per_node gpus_per_node when unset (1 when that is
/// 0), cpus_per_task cpus_per_node / tasks_per_node (at least 1) when unset and cpus_per_node is
/// given, else 1, launcher "srun"; job_name from [job] name, out_file from [job] output.
/// The caller sets scaletune and job_file.
SlurmSettings resolve(const job::SlurmSpec& slurm, const job::JobInfo& job);

/// One allocation and the rank counts it runs.
struct Allocation {
  int nodes = 1;
  int tasks_per_node = 1;        ///< --ntasks-per-node (the most on one node)
  int tasks = 1;                 ///< --ntasks: the world size of the launch
  std::vector<int> rank_counts;  ///< ascending
};

/// The allocations for `rank_counts` (any order, duplicates ignored) with T = tasks_per_node:
/// counts k <= T or multiples of T share one allocation of N x T ranks, N = `nodes` or the
/// fewest nodes the largest of them needs; sub-communicators there take whole nodes first. Each
/// other count k (k > T, not a multiple) gets its own: n = ceil(k / T) nodes, k tasks, at most
/// ceil(k / n) on a node, so its ranks spread evenly as a real job of that size would. Throws
/// std::invalid_argument when a count needs more nodes than `nodes` allows (naming both) or
/// `rank_counts` is empty.
std::vector<Allocation> allocations(std::span<const int> rank_counts, const SlurmSettings& s);

/// One batch script.
struct BatchScript {
  std::string file_name;  ///< "<job>.sbatch", then "<job>-<k>ranks.sbatch" for split counts
  std::string text;
  Allocation allocation;
};

/// Whether `file_name` is a script batch_scripts() writes for job `job_name`: "<job>.sbatch" or
/// "<job>-<k>ranks.sbatch".
bool is_script_of(std::string_view file_name, std::string_view job_name);

/// The scripts for `rank_counts`: #SBATCH --job-name, --nodes, --ntasks (split allocations),
/// --ntasks-per-node, --gpus-per-node or --gres=gpu: (when > 0), --cpus-per-task, --exclusive,
/// --output=%x_%j.out, --partition, --account, --time (when set), --dependency=singleton when
/// there are several (they then run one after another and share the result file), then each of
/// sbatch_args; then NCCL_SOCKET_IFNAME and NCCL_DEBUG exports when set and the env exports
/// (CUDA_VISIBLE_DEVICES is left to Slurm); with preflight, one srun task per node printing
/// "preflight: HOST: GPUs: N x MODEL; fabric: NCCL_*, FI_*, UCX_* variables" into the job's output
/// (nvidia-smi where present; a failure is reported, not fatal); and one launch:
/// `srun --mpi=pmix [--container-image=I --container-mounts=M,... --container-workdir=W]
/// SRUN_ARGS SCALETUNE run JOB --out OUT --resume --ranks K,...` or
/// `mpirun -np $SLURM_NTASKS SCALETUNE run ...`. Paths with characters a shell treats specially
/// are single-quoted. Throws as allocations() does.
std::vector<BatchScript> batch_scripts(std::span<const int> rank_counts, const SlurmSettings& s);

}  // namespace scaletune::slurm
