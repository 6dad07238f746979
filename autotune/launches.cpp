#include "autotune/launches.hpp"

#include <algorithm>
#include <tuple>

#include "autotune/detail/format.hpp"

namespace scaletune::autotune {
namespace {

bool same_launch(const LaunchSummary& s, const results::LaunchRecord& l) {
  return std::tie(s.started_utc, s.launcher, s.slurm_job_id, s.world_size) ==
         std::tie(l.started_utc, l.launcher, l.slurm_job_id, l.world_size);
}

/// "Slurm job 101, mpirun, world size 2 on node1 and node2, from <start>: 3 configurations"
std::string clause(const LaunchSummary& s) {
  std::string hosts;
  for (std::size_t i = 0; i < s.hosts.size(); ++i)
    hosts += (i == 0 ? "" : i + 1 == s.hosts.size() ? " and " : ", ") + s.hosts[i];
  return (s.slurm_job_id.empty() ? "" : "Slurm job " + s.slurm_job_id + ", ") + s.launcher +
         ", world size " + std::to_string(s.world_size) + " on " + hosts + ", from " +
         s.started_utc + ": " + detail::counted(s.configurations, "configuration");
}

}  // namespace

std::vector<LaunchSummary> launches_of(const results::ResultSet& rs) {
  std::vector<LaunchSummary> launches;
  for (const results::ConfigResult& c : rs.configs) {
    if (!c.launch) continue;
    const results::LaunchRecord& l = *c.launch;
    auto it = std::ranges::find_if(launches, [&](const auto& s) { return same_launch(s, l); });
    if (it == launches.end())
      it = launches.insert(launches.end(),
                           {l.started_utc, l.launcher, l.slurm_job_id, l.world_size, {}, 0});
    ++it->configurations;
    for (const results::RankInfo& r : l.ranks)
      if (std::ranges::find(it->hosts, r.host) == it->hosts.end()) it->hosts.push_back(r.host);
  }
  return launches;
}

std::string launches_sentence(const results::ResultSet& rs) {
  const std::vector<LaunchSummary> launches = launches_of(rs);
  if (launches.size() < 2) return "";
  std::string line = "Launches: " + std::to_string(launches.size()) + " (";
  for (std::size_t i = 0; i < launches.size(); ++i)
    line += (i == 0 ? "" : "; ") + clause(launches[i]);
  return line + ")";
}

}  // namespace scaletune::autotune
