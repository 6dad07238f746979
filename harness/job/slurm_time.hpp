#pragma once
// Slurm values a batch script writes, checked where a job file or the command line gives one.

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

}  // namespace scaletune::job
