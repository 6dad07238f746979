#include "backend_choice.hpp"

namespace scaletune::core {

namespace {

/// Throws BackendUnavailable when "nccl" cannot run; returns otherwise.
void require_nccl_usable(bool workload_uses_device_memory, bool nccl_built, int cuda_devices) {
  const std::string prefix = "comm.backend = \"nccl\" needs ";
  const std::string instead = "; use \"mpi\" or \"auto\"";
  if (!nccl_built) {
    throw BackendUnavailable(
        prefix +
        "NCCL, but this scaletune was built without it (CMake found no CUDA "
        "toolkit with NCCL); rebuild where the toolkit and NCCL are installed" +
        instead);
  }
  if (!workload_uses_device_memory) {
    throw BackendUnavailable(prefix +
                             "a workload on device memory, but this workload runs on host memory "
                             "and NCCL only moves device buffers" +
                             instead);
  }
  if (cuda_devices < 1) {
    throw BackendUnavailable(prefix +
                             "a CUDA device, but this machine has none (cudaGetDeviceCount found " +
                             std::to_string(cuda_devices) + ")" + instead);
  }
}

}  // namespace

std::string choose_backend(std::string_view requested, bool workload_uses_device_memory,
                           bool nccl_built, int cuda_devices) {
  if (requested == "mpi") return "mpi";
  if (requested == "auto") {
    const bool nccl = workload_uses_device_memory && nccl_built && cuda_devices > 0;
    return nccl ? "nccl" : "mpi";
  }
  if (requested == "nccl") {
    require_nccl_usable(workload_uses_device_memory, nccl_built, cuda_devices);
    return "nccl";
  }
  throw std::invalid_argument("comm.backend = \"" + std::string(requested) +
                              "\" is not a backend; expected \"mpi\", \"nccl\" or \"auto\"");
}

}  // namespace scaletune::core
