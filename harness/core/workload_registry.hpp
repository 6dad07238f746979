#pragma once
// Workloads add themselves here by kind name, instead of to a switch in main.

#include <functional>
#include <memory>
#include <string>
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

/// Registers `factory` (and optionally `describe`) under `kind`; returns true (for use in a
/// static initialiser). Throws std::logic_error when the kind is registered twice.
bool register_workload(const std::string& kind, WorkloadFactory factory,
                       ConfigDescriber describe = {});

/// The factory of `kind`; throws std::invalid_argument naming the kind and the known kinds.
const WorkloadFactory& workload_factory(const std::string& kind);

/// The describer of `kind`: an empty function when it registered none; throws as
/// workload_factory does for an unknown kind.
const ConfigDescriber& config_describer(const std::string& kind);

/// Registered kinds, sorted.
std::vector<std::string> registered_workloads();

}  // namespace scaletune::core
