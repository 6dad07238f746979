#pragma once
// The state sharding of a transformer configuration ([sweep] state_sharding): which ZeRO stage
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models") and whether shards are even or sized by each rank's memory. The job parser reads the
// value (harness/job/option_values.hpp); the workload uses it under these names.

#include "harness/job/option_values.hpp"

namespace scaletune::kernels {

/// What each rank keeps whole and what it shards: replicated, zero1, zero2, zero3.
using job::ZeroStage;

/// A stage, whether its shards are sized by memory, and whether the planner picks the stage.
using job::StateSharding;

/// "replicated", "zero1", "zero2", "zero3".
using job::stage_name;

/// The value as a job file writes it: "zero2:memory_proportional", "replicated", "auto"; a
/// plan's chosen sharding (never automatic) prints as the stage it chose.
using job::state_sharding_text;

}  // namespace scaletune::kernels
