#pragma once
// Reading the [slurm] table of a job file.

#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Reads [slurm] (absent: every field unset): nodes, tasks_per_node, cpus_per_task (integers
/// >= 1), gpus_per_node (integer >= 0), partition, account, time (non-empty strings; time in one
/// of Slurm's forms: minutes, "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"), launcher
/// ("srun" or "mpirun"), nccl_socket_ifname, nccl_debug (non-empty strings). Unknown keys are
/// errors. Throws JobError at the offending node.
SlurmSpec read_slurm(const TableReader& slurm);

}  // namespace scaletune::job::detail
