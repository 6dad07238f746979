#pragma once
// Slurm batch scripts that run a job's sweep: one allocation for every rank count that takes
// whole nodes (or part of one), one more for each count that would split unevenly over nodes.

#include <span>
#include <string>
#include <string_view>
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
  std::string partition, account, time;  ///< empty: not written (the cluster's default)
  std::string launcher = "srun";         ///< "srun" (srun --mpi=pmix) or "mpirun"
  std::string nccl_socket_ifname;        ///< exported when not empty
  std::string nccl_debug;                ///< exported when not empty
  std::string job_name;                  ///< --job-name: the job's [job] name
  std::string scaletune = "scaletune";   ///< the command the script runs
  std::string job_file;                  ///< the job file as the script names it
  std::string out_file;                  ///< the result file every script writes (--resume)
};

/// The settings of a [slurm] table (the job file's, with any command-line options already
/// applied): gpus_per_node 8 when unset, tasks_per_node gpus_per_node when unset (1 when that is
/// 0), cpus_per_task 1, launcher "srun"; job_name from [job] name, out_file from [job] output.
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
/// --ntasks-per-node, --gpus-per-node (when > 0), --cpus-per-task, --exclusive,
/// --output=%x_%j.out, --partition, --account, --time (when set), --dependency=singleton when
/// there are several (they then run one after another and share the result file); then
/// NCCL_SOCKET_IFNAME and NCCL_DEBUG exports when set (CUDA_VISIBLE_DEVICES is left to Slurm),
/// and one launch: `srun --mpi=pmix SCALETUNE run JOB --out OUT --resume --ranks K,...` or
/// `mpirun -np $SLURM_NTASKS SCALETUNE run ...`. Paths with characters a shell treats specially
/// are single-quoted. Throws as allocations() does.
std::vector<BatchScript> batch_scripts(std::span<const int> rank_counts, const SlurmSettings& s);

}  // namespace scaletune::slurm
