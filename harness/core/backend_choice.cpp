#include "backend_choice.hpp"

namespace scaletune::core {

namespace {

/// Throws BackendUnavailable when "nccl" cannot run; returns otherwise.
void require_nccl_usable(job::DeviceKind device_kind, bool nccl_built) {
  const std::string prefix = "comm.backend = \"nccl\" needs ";
  const std::string instead = "; use \"mpi\" or \"auto\"";
  if (!nccl_built)
    throw BackendUnavailable(prefix +
                             "NCCL, but this scaletune was built without it (CMake found no CUDA "
                             "toolkit with NCCL); rebuild where the toolkit and NCCL are "
                             "installed" +
                             instead);
  if (device_kind == job::DeviceKind::host)
    throw BackendUnavailable(prefix +
                             "CUDA devices, but this launch runs on the host (devices.kind = "
                             "\"host\", or \"auto\" where a rank sees no CUDA device) and NCCL "
                             "moves device buffers only" +
                             instead + ", or run where every rank has a CUDA device");
}

}  // namespace

std::string choose_backend(job::CommBackend requested, job::DeviceKind device_kind,
                           bool nccl_built) {
  switch (requested) {
    case job::CommBackend::mpi:
      return "mpi";
    case job::CommBackend::auto_select:
      return device_kind == job::DeviceKind::cuda && nccl_built ? "nccl" : "mpi";
    case job::CommBackend::nccl:
      break;
  }
  require_nccl_usable(device_kind, nccl_built);
  return "nccl";
}

}  // namespace scaletune::core
