#pragma once
// The training workloads a build has, registered explicitly by the program that runs them
// (kernels::register_workloads), instead of by static initialisers or a switch in main.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/workload.hpp"

namespace scaletune::core {

/// Makes one rank's workload for a configuration. May throw std::bad_alloc (recorded as oom).
using WorkloadFactory = std::function<std::unique_ptr<Workload>(
    const job::WorkloadSpec&, const job::Config&, const RankContext&)>;

/// Text attributes of a configuration that are known before its workload is built (e.g. a
/// DLRM plan's placement), so a configuration that cannot be built (oom) still records them.
/// Cheap and allocation-light; may throw std::invalid_argument on bad settings.
using ConfigDescriber = std::function<std::vector<std::pair<std::string, std::string>>(
    const job::WorkloadSpec&, const job::Config&)>;

/// Whether every rank of a configuration issues the same step: the same ops of the same shapes
/// and the same collectives in the same order, only the data differing (so a described step
/// need be described and composed once for all ranks). Must be false whenever anything the
/// step issues depends on the rank.
using RanksAlike = std::function<bool(const job::JobSpec&, const job::Config&)>;

/// One registered kind: how to make its workload and, optionally, describe its configurations.
struct WorkloadEntry {
  WorkloadFactory factory;
  ConfigDescriber describe;  ///< empty: nothing to record before the workload is built
  RanksAlike ranks_alike;    ///< empty: ranks are never taken as alike
};

/// Workload kinds by name.
class WorkloadRegistry {
 public:
  /// Registers `factory` (and optionally `describe` and `ranks_alike`) under `kind`. Throws
  /// std::logic_error when the kind is registered twice.
  void add(const std::string& kind, WorkloadFactory factory, ConfigDescriber describe = {},
           RanksAlike ranks_alike = {});
  /// The entry of `kind`; throws std::invalid_argument naming the kind and the known kinds.
  const WorkloadEntry& entry(const std::string& kind) const;
  /// Registered kinds, sorted.
  std::vector<std::string> kinds() const;

 private:
  std::map<std::string, WorkloadEntry> m_entries;
};

}  // namespace scaletune::core
