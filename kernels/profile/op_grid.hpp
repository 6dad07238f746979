#pragma once
// The shapes `scaletune profile` times by default: for every op kind the workloads use, a grid
// spread geometrically over the range of sizes the workloads reach (their shipped jobs and
// beyond), so that a model fitted on it interpolates for shapes it never saw. Each entry is
// the op's record as the describing backend would make it (op_costs.hpp), with embedding
// lookups also naming the law of their indices (shape field zipf_milli: Zipf exponent x 1000,
// 0 uniform).

#include <vector>

#include "harness/core/device.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::kernels::profile {

/// The default grid for devices of `kind`: fp32 ops on the host (every activation type on CUDA:
/// fp32, bf16 and fp16 for the GEMMs, convolutions and attention), sizes capped so that the
/// whole grid takes about two minutes on a host core (larger on CUDA). Deterministic.
std::vector<trace::ComputeOp> default_op_grid(core::DeviceKind kind);

}  // namespace scaletune::kernels::profile
