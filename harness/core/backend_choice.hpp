#pragma once
// Which communicator backend a configuration runs on ([comm] backend = "mpi" | "nccl" | "auto").

#include <stdexcept>
#include <string>
#include <string_view>

namespace scaletune::core {

/// The requested backend cannot run here (NCCL not built in, no CUDA device, or a workload on
/// host memory). what() says why and what to use instead.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The backend, "mpi" or "nccl", for [comm] backend = `requested`:
/// - "auto": "nccl" when the workload runs on device memory, NCCL is built in (`nccl_built`)
///   and `cuda_devices` > 0; "mpi" otherwise.
/// - "mpi": "mpi".
/// - "nccl": "nccl"; throws BackendUnavailable when NCCL is not built in, when the workload
///   runs on host memory (NCCL reduces device buffers only) or when `cuda_devices` < 1.
/// `cuda_devices` is the count the CUDA runtime reports (0 without a driver or device).
/// Throws std::invalid_argument for any other `requested`.
std::string choose_backend(std::string_view requested, bool workload_uses_device_memory,
                           bool nccl_built, int cuda_devices);

}  // namespace scaletune::core
