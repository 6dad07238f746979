#pragma once
// The extra [slurm] values a batch script writes as they are (exported variables, extra sbatch
// and srun options, pyxis containers): what each may hold, what the script already sets itself,
// and the conflicts between keys. The job parser and `plan --slurm` check with these alike.

#include <optional>
#include <string>
#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job {

/// What is_environment_name and is_environment_value accept, for messages.
inline constexpr std::string_view kEnvironmentNameForm = "[A-Z_][A-Z0-9_]*";
inline constexpr std::string_view kEnvironmentValueCharacters =
    "letters, digits and ._,:@+-/=^% only (it is written into the batch script as it is)";
/// What is_slurm_option accepts, for messages.
inline constexpr std::string_view kSlurmOptionForm =
    "one option --name or --name=value (name: lower-case letters, digits and -; value: letters, "
    "digits and ._,:@+-/=^%)";

/// What is_container_image and is_container_mount accept, for messages.
inline constexpr std::string_view kContainerImageCharacters =
    "letters, digits and ._:@+-/#=% only (an enroot image URI such as "
    "nvcr.io#nvidia/pytorch:24.01-py3 or a .sqsh path)";
inline constexpr std::string_view kContainerMountForm =
    "SRC:DST or SRC:DST:FLAGS, SRC and DST absolute paths of letters, digits and ._+-/ and FLAGS "
    "letters and + (e.g. /fsx:/fsx or /data:/data:ro)";
inline constexpr std::string_view kContainerPathForm =
    "an absolute path of letters, digits and ._+-/";

/// True when `image` is a container image pyxis' --container-image takes, written as it is.
bool is_container_image(std::string_view image);
/// True when `mount` is one pyxis --container-mounts entry SRC:DST[:FLAGS] (see
/// kContainerMountForm).
bool is_container_mount(std::string_view mount);
/// One pyxis mount SRC:DST[:FLAGS], split.
struct ContainerMount {
  std::string source;       ///< SRC, a path of the node
  std::string destination;  ///< DST, where the container sees it
  std::string flags;        ///< FLAGS ("ro", "rw", ...; '+' between several), "" when not given
  /// True when FLAGS hold "ro": the container cannot write there.
  [[nodiscard]] bool read_only() const;
  /// DST lexically normalised, without a trailing '/' ("/w/./" -> "/w"; "/" stays).
  [[nodiscard]] std::string normal_destination() const;
};
/// `mount` (is_container_mount) split into its parts.
ContainerMount split_container_mount(std::string_view mount);
/// True when `path` is an absolute path of [A-Za-z0-9._+-/] (a container's workdir, a mount end).
bool is_container_path(std::string_view path);

/// The name of an option word: "--mem=0" -> "mem".
std::string_view slurm_option_name(std::string_view word);
/// The option a batch script's #SBATCH lines already set that `name` is or abbreviates (Slurm
/// takes unambiguous abbreviations: "nod" -> "nodes"), "" when none: job-name, nodes, ntasks,
/// ntasks-per-node, gpus-per-node, gres, cpus-per-task, exclusive, output, partition, account,
/// time, dependency; the GPU and CPU requests that contradict them (gpus, tres-per-node,
/// cpus-per-gpu, ntasks-per-gpu); wrap, which would replace the script.
std::string_view written_sbatch_option(std::string_view name);
/// The same for the srun launch line: mpi, container-image, container-mounts, container-workdir,
/// and what would change the allocation it takes from the #SBATCH lines (nodes, ntasks,
/// ntasks-per-node, cpus-per-task).
std::string_view written_srun_option(std::string_view name);
/// Whether the script, Slurm or the MPI launcher sets or relies on variable `name`, so exporting
/// it would change the script, the allocation or each rank's identity: SLURM_*, SRUN_*, SBATCH_*,
/// OMPI_*, PMIX_*, PMI_*, PATH, BASH_ENV, ENV, IFS, SHELLOPTS, BASHOPTS, POSIXLY_CORRECT,
/// GLOBIGNORE, EXECIGNORE, CUDA_VISIBLE_DEVICES (left to Slurm).
bool is_reserved_environment_name(std::string_view name);
/// `text` for a message: control characters and bytes outside ASCII as \xNN, so a NUL or a line
/// break cannot cut or split it.
std::string printable(std::string_view text);

/// True when `name` is an environment variable a batch script may export: [A-Z_][A-Z0-9_]*.
bool is_environment_name(std::string_view name);
/// True when `value` may be exported as it is: one or more of [A-Za-z0-9._,:@+-/=^%] (fabric
/// settings such as UCX_TLS=rc,sm, NCCL_IB_HCA=^mlx5_bond or a plugin path).
bool is_environment_value(std::string_view value);
/// True when `word` is one extra srun or sbatch option written as it is: "--name" or
/// "--name=value", name [a-z][a-z0-9-]*, value as is_environment_value.
bool is_slurm_option(std::string_view word);

/// Which launch line an extra option goes to.
enum class ExtraOptions { sbatch, srun };

/// What is wrong with exporting `name`=`value` (a name not of kEnvironmentNameForm, one the
/// script relies on, a value outside kEnvironmentValueCharacters), as a message naming it;
/// "" when nothing is.
std::string environment_problem(std::string_view name, std::string_view value);
/// What is wrong with extra option `word` ("'WORD': expected ..." when not of kSlurmOptionForm,
/// or one the script writes itself); "" when nothing is.
std::string extra_option_problem(std::string_view word, ExtraOptions kind);
/// "'MOUNT': expected ..." when `mount` is no pyxis mount; "" when it is one.
std::string container_mount_problem(std::string_view mount);

/// Two [slurm] settings that cannot go together: the key to blame and why.
struct SlurmConflict {
  std::string key;
  std::string message;
};
/// The first conflict of `slurm` (the job's table, or it with the command line's options
/// applied): container mounts or a workdir without an image; two mounts onto one destination; a
/// container or srun_args with the mpirun launcher. nullopt when there is none.
std::optional<SlurmConflict> slurm_conflict(const SlurmSpec& slurm);

}  // namespace scaletune::job
