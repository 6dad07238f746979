#pragma once
// The op backend of one rank: the host's, or the CUDA backend on the rank's GPU.

#include <memory>

#include "harness/core/workload.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels {

/// The backend a workload of this rank runs its ops on: the host backend (this build has no
/// device backend wired yet). The backend must not outlive ctx's device.
std::unique_ptr<ops::Backend> make_backend(const core::RankContext& ctx);

}  // namespace scaletune::kernels
