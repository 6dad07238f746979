#include "harness/mpi/config_kinds.hpp"

#include <stdexcept>
#include <utility>

#include "harness/mpi/collective_config_runner.hpp"

namespace scaletune::mpi {

ConfigKinds::ConfigKinds(const core::WorkloadRegistry& workloads) {
  for (const std::string& kind : workloads.kinds()) {
    const core::WorkloadEntry& entry = workloads.entry(kind);
    add(kind, [&entry](const ConfigRequest& r) {
      ConfigRun run = run_config(r.job, r.config, r.comm, r.world_ranks, r.target, entry);
      return KindRun{std::move(run.config), {}, std::move(run.device_lost)};
    });
  }
}

void ConfigKinds::add(const std::string& kind, ConfigRunner runner) {
  if (!m_runners.emplace(kind, std::move(runner)).second)
    throw std::logic_error("configuration kind '" + kind + "' registered twice");
}

KindRun ConfigKinds::run(const ConfigRequest& request) const {
  const auto it = m_runners.find(request.config.workload);
  if (it != m_runners.end()) return it->second(request);
  std::string known;
  for (const auto& [k, r] : m_runners) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("no workload of kind '" + request.config.workload +
                              "' in this build (built: " + known + ")");
}

void add_collective_benchmark(ConfigKinds& kinds) {
  kinds.add("collectives", [](const ConfigRequest& r) {
    CollectivesRun run = run_collectives_config(r.job, r.config, r.comm, r.target.make_communicator,
                                                r.rank_lines, r.progress);
    return KindRun{std::move(run.config), std::move(run.rows), std::move(run.device_lost)};
  });
}

}  // namespace scaletune::mpi
