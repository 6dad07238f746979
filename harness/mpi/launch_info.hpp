#pragma once
// How this process was started (Open MPI's mpirun, Slurm's srun, or no launcher) and the Slurm
// job it runs in, read from the environment the launcher hands each process. No MPI calls.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace scaletune::mpi {

/// Looks environment variable `name` up: its value, or std::nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// What started the ranks.
enum class Launcher {
  singleton,  ///< no launcher: one process started by hand (an MPI singleton)
  mpirun,     ///< Open MPI's mpirun / mpiexec, outside or inside a Slurm allocation
  srun,       ///< Slurm's srun starting every rank itself (srun --mpi=pmix)
};

/// "singleton", "mpirun" or "srun": the value of the /system attribute `launcher`.
const char* to_string(Launcher launcher);

/// The launch as one process sees it (results/README.md, /system).
struct LaunchInfo {
  Launcher launcher = Launcher::singleton;
  std::string slurm_job_id;    ///< Slurm job id ("4242"); empty outside a Slurm job
  std::string slurm_nodelist;  ///< the job's nodes, Slurm hostlist form ("node[01-04]"); or empty
  std::string slurm_step_id;   ///< the srun step ("0"); empty unless launcher is srun
};

/// Detects the launch from the variables `env` finds; a variable set to "" counts as unset.
/// launcher, first rule that holds:
///  - mpirun: OMPI_COMM_WORLD_SIZE is set. Open MPI's mpirun sets it for every process it
///    starts (mpirun(1), "Environment Variables"), also inside an sbatch allocation and on
///    nodes whose daemon srun started; under srun Open MPI sets only OMPI_MCA_orte_ess_num_procs
///    and OMPI_APP_CTX_NUM_PROCS (orte/mca/ess/pmi), never OMPI_COMM_WORLD_SIZE.
///  - srun: SLURM_STEP_ID and SLURM_PROCID are set. srun sets both for each task it starts
///    (srun(1), "Output Environment Variables"); an sbatch batch script has SLURM_PROCID but no
///    step id (sbatch(1)), so a process started there by hand stays a singleton.
///  - singleton otherwise.
/// slurm_job_id: SLURM_JOB_ID, else SLURM_JOBID (older name); slurm_nodelist:
/// SLURM_JOB_NODELIST, else SLURM_NODELIST (sbatch(1), srun(1)); slurm_step_id (srun only, so
/// sacct -j JOB.STEP finds the step of this run among the job's steps): SLURM_STEP_ID, else
/// SLURM_STEPID. Throws nothing.
LaunchInfo detect_launch(const EnvLookup& env);

/// detect_launch over this process's environment (std::getenv).
LaunchInfo detect_launch();

}  // namespace scaletune::mpi
