#pragma once
// Which communicator backend a configuration runs on ([comm] backend = "mpi" | "nccl" | "auto")
// on a launch of a given device kind ([devices] kind resolved: job::choose_device_kind).

#include <stdexcept>
#include <string>

#include "harness/job/device_selection.hpp"
#include "harness/job/option_values.hpp"

namespace scaletune::core {

/// The requested backend cannot run here (NCCL not built in, or a launch on the host). what()
/// says why and what to use instead.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The backend, "mpi" or "nccl", for [comm] backend = `requested` on a launch whose device kind
/// is `device_kind`:
/// - auto_select: "nccl" when the launch runs on CUDA and NCCL is built in (`nccl_built`);
///   "mpi" otherwise.
/// - mpi: "mpi".
/// - nccl: "nccl"; throws BackendUnavailable when NCCL is not built in, or when the launch runs
///   on the host (NCCL moves device buffers only; the message says why the launch is on the
///   host and what to use instead).
std::string choose_backend(job::CommBackend requested, job::DeviceKind device_kind,
                           bool nccl_built);

}  // namespace scaletune::core
