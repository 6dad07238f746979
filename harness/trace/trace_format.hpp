#pragma once
// The text `scaletune trace` prints for one configuration's described step.

#include <string>
#include <vector>

#include "harness/trace/step_trace.hpp"

namespace scaletune::trace {

/// How much of each rank's step to print.
enum class TraceDetail {
  collectives,  ///< per phase: op count, FLOPs and bytes summed; every collective and wait
  ops,          ///< every event, compute ops included
};

/// The block of one configuration: a header line (`config`, its ranks, device kind), then per
/// rank its totals and events at `detail`; a rank whose events equal those of the last rank printed
/// in full is one line ("rank 3: as rank 1"). `ranks` in rank order, non-empty.
std::string format_trace(const std::string& config, const std::string& device_kind,
                         const std::vector<RankTrace>& ranks, TraceDetail detail);

}  // namespace scaletune::trace
