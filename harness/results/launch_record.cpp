#include "harness/results/launch_record.hpp"

#include <stdexcept>
#include <string>

namespace scaletune::results {

bool is_launcher_name(std::string_view name) {
  return name == "mpirun" || name == "srun" || name == "singleton";
}

bool is_utc_timestamp(std::string_view text) {
  constexpr std::string_view kForm = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kForm.size()) return false;
  for (std::size_t i = 0; i < kForm.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kForm[i] == 'd' ? !digit : text[i] != kForm[i]) return false;
  }
  return true;
}

LaunchRecord launch_record(const SystemInfo& system, const std::string& started_utc,
                           std::span<const int> world_ranks) {
  LaunchRecord launch{system.world_size,   started_utc,          system.launcher,
                      system.slurm_job_id, system.slurm_step_id, {}};
  for (const int r : world_ranks) {
    if (r < 0 || static_cast<std::size_t>(r) >= system.ranks.size())
      throw std::out_of_range("world rank " + std::to_string(r) + " is not in /system/ranks (" +
                              std::to_string(system.ranks.size()) + " rows)");
    launch.ranks.push_back(system.ranks[static_cast<std::size_t>(r)]);
  }
  return launch;
}

}  // namespace scaletune::results
