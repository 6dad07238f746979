#pragma once
// Where a run's workloads compute ([devices] kind) and how they communicate ([comm] backend):
// each rank's device for the launch, the configurations' communicators, and what /system records
// about them. The command line links every backend this build has.

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "harness/core/device.hpp"
#include "harness/job/job.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/mpi/system_info.hpp"

namespace scaletune::cli {

/// A run's device kind and communicator backend, the same on every rank, and this rank's device.
struct RunBackend {
  core::DeviceKind device_kind = core::DeviceKind::host;  ///< where every workload computes
  std::string name;                                       ///< communicator: "mpi" or "nccl"
  mpi::CommunicatorFactory make;                          ///< the configurations' communicators
  /// This rank's device for the whole launch: a device::CudaContext bound to its GPU (cuda), or
  /// a core::HostDevice; `make`'s communicators and the workloads use it.
  std::shared_ptr<core::Device> device;
  std::optional<mpi::BoundDevice> bound;  ///< this rank's CUDA device for /system/ranks (cuda)
  std::string cuda_runtime;               ///< /system cuda_runtime (cuda)
  std::string nccl_version;               ///< /system nccl_version (nccl)
};

/// Collective over `world`. Gathers what every rank sees of CUDA (device count, the device it
/// would bind: local_rank % visible devices, mpi::device_for_rank, and its compute capability),
/// resolves job.devices.kind (job::choose_device_kind: auto is cuda when every rank has a
/// device), checks every swept precision on those devices (job::check_precision_on_devices),
/// chooses the communicator (core::choose_backend: auto is NCCL on cuda) and makes this rank's
/// device. On cuda a training workload needs NCCL (this Open MPI is not CUDA-aware); the
/// collective benchmark may also time MPI on host buffers. Throws job::DeviceUnavailable or
/// core::BackendUnavailable on every rank, the same message everywhere (naming the rank, its
/// host and what to use instead), when the job cannot run on this launch.
RunBackend choose_run_backend(const job::JobSpec& job, MPI_Comm world);

/// Sets the sweep's communicators, this rank's device (which must outlive the sweep: it stays
/// owned by `backend`), device kind, bound device and library versions from `backend`; moves
/// its communicator factory out.
void use_backend(mpi::SweepOptions& options, RunBackend& backend);

}  // namespace scaletune::cli
