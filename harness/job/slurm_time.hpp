#pragma once
// Slurm's time limit forms, checked where a job file or the command line gives one.

#include <string_view>

namespace scaletune::job {

/// True when `time` is one of Slurm's --time forms (sbatch(1) "-t, --time"): "M", "M:S",
/// "H:M:S", "D-H", "D-H:M", "D-H:M:S", each field digits; or "infinite" / "UNLIMITED".
bool is_slurm_time(std::string_view time);

}  // namespace scaletune::job
