#pragma once
// How each workload kind's configurations run, in one registry the sweep looks kinds up in:
// the training workloads of a core::WorkloadRegistry (each through run_config with its
// factory) and benchmarks that run a configuration themselves (the collective benchmark).

#include <mpi.h>

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "harness/mpi/config_runner.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// One configuration to run on the member ranks of `comm` (size config.ranks).
struct ConfigRequest {
  const job::JobSpec& job;
  const job::Config& config;
  MPI_Comm comm;
  std::span<const int> world_ranks;  ///< the launch's world rank of each rank of comm
  const RankTarget& target;          ///< communicators, this rank's device, the device kind
  const std::vector<std::string>& rank_lines;  ///< "on <host> device <device>" per rank (rank 0)
  std::ostream* progress;                      ///< rank 0's output; nullptr: none
};

/// One rank's outcome of a configuration.
struct KindRun {
  results::ConfigResult result;                 ///< rank 0: full; other ranks: the status
  std::vector<results::CollectiveResult> rows;  ///< /collectives rows (a benchmark's, rank 0)
  std::optional<DeviceLoss> device_lost;        ///< as ConfigRun::device_lost
};

/// Runs one configuration; collective over request.comm, never throws for a failing one.
using ConfigRunner = std::function<KindRun(const ConfigRequest&)>;

/// Kinds by name.
class ConfigKinds {
 public:
  /// Every kind of `workloads` (which must outlive this), run by run_config with its entry.
  explicit ConfigKinds(const core::WorkloadRegistry& workloads);
  /// Registers `runner` under `kind`; throws std::logic_error when the kind is known already.
  void add(const std::string& kind, ConfigRunner runner);
  /// Runs request.config by its kind's runner; throws std::invalid_argument naming the kind and
  /// the known kinds for an unknown one.
  KindRun run(const ConfigRequest& request) const;

 private:
  std::map<std::string, ConfigRunner> m_runners;
};

/// Registers the collective benchmark (run_collectives_config) as kind "collectives".
void add_collective_benchmark(ConfigKinds& kinds);

}  // namespace scaletune::mpi
