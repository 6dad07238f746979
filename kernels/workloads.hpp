#pragma once
// The training workloads this build has, registered explicitly.

#include "harness/core/workload_registry.hpp"

namespace scaletune::kernels {

/// Adds "resnet50", "dlrm" and "transformer" to `registry`. Throws std::logic_error when one of
/// them is registered already.
void register_workloads(core::WorkloadRegistry& registry);

}  // namespace scaletune::kernels
