#include "launch_info.hpp"

#include <cstdlib>
#include <initializer_list>
#include <utility>

namespace scaletune::mpi {

namespace {

/// The value of the first of `names` that `env` finds set and non-empty; "" when none is.
std::string first_set(const EnvLookup& env, std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    std::optional<std::string> value = env(name);
    if (value && !value->empty()) return std::move(*value);
  }
  return {};
}

bool is_set(const EnvLookup& env, std::string_view name) {
  return !first_set(env, {name}).empty();
}

Launcher detect_launcher(const EnvLookup& env) {
  if (is_set(env, "OMPI_COMM_WORLD_SIZE")) return Launcher::mpirun;
  if (is_set(env, "SLURM_STEP_ID") && is_set(env, "SLURM_PROCID")) return Launcher::srun;
  return Launcher::singleton;
}

}  // namespace

const char* to_string(Launcher launcher) {
  switch (launcher) {
    case Launcher::mpirun:
      return "mpirun";
    case Launcher::srun:
      return "srun";
    case Launcher::singleton:
      break;
  }
  return "singleton";
}

LaunchInfo detect_launch(const EnvLookup& env) {
  LaunchInfo info;
  info.launcher = detect_launcher(env);
  info.slurm_job_id = first_set(env, {"SLURM_JOB_ID", "SLURM_JOBID"});
  info.slurm_nodelist = first_set(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (info.launcher == Launcher::srun)
    info.slurm_step_id = first_set(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
  return info;
}

LaunchInfo detect_launch() {
  return detect_launch([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace scaletune::mpi
