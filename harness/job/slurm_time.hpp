#pragma once
// Slurm values a batch script writes, checked where a job file or the command line gives one.

#include <string>
#include <string_view>

namespace scaletune::job {

/// Largest node count and per-node count (ranks, GPUs, CPUs) a job file or `plan --slurm` may ask
/// for.
constexpr int kMaxSlurmNodes = 1 << 16;
constexpr int kMaxPerNode = 1024;

/// What is_slurm_time accepts, for messages.
inline constexpr std::string_view kSlurmTimeForms =
    "one of Slurm's --time forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS";
/// What is_slurm_word accepts, for messages.
inline constexpr std::string_view kSlurmWordCharacters =
    "letters, digits and ._,:@+- only (it is written into the batch script as it is)";

/// True when `time` is one of Slurm's --time forms (sbatch(1) "-t, --time"): "M", "M:S",
/// "H:M:S", "D-H", "D-H:M", "D-H:M:S", each field digits; or "infinite" / "UNLIMITED".
bool is_slurm_time(std::string_view time);

/// True when `value` can stand in a batch script as a partition, account, interface or NCCL
/// setting: one or more of [A-Za-z0-9._,:@+-] (no blank, quote, '$' or line break, which would
/// end the #SBATCH line or reach the shell).
bool is_slurm_word(std::string_view value);

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
/// True when `path` is an absolute path of [A-Za-z0-9._+-/] (a container's workdir, a mount end).
bool is_container_path(std::string_view path);

/// The name of an option word: "--mem=0" -> "mem".
std::string_view slurm_option_name(std::string_view word);
/// Whether a batch script's #SBATCH lines already set option `name` (job-name, nodes, ntasks,
/// ntasks-per-node, gpus-per-node, gres, cpus-per-task, exclusive, output, partition, account,
/// time, dependency) or it would replace the script (wrap): an extra one would contradict them.
bool is_written_sbatch_option(std::string_view name);
/// Whether the srun launch line already sets option `name` (mpi, container-image,
/// container-mounts, container-workdir).
bool is_written_srun_option(std::string_view name);
/// Whether the script itself relies on variable `name`, so exporting it would change the script
/// or Slurm's allocation: SLURM_*, SRUN_*, SBATCH_*, PATH, BASH_ENV, ENV, IFS, SHELLOPTS,
/// BASHOPTS, CUDA_VISIBLE_DEVICES (left to Slurm).
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

}  // namespace scaletune::job
