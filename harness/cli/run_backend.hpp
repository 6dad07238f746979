#pragma once
// The communicator backend of a run ([comm] backend): which one, on which device, and what
// /system records about it. The command line links every backend this build has.

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "harness/core/device.hpp"
#include "harness/job/job.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/system_info.hpp"

namespace scaletune::cli {

/// A run's backend, the same on every rank.
struct RunBackend {
  std::string name;                        ///< "mpi" or "nccl"
  mpi::CommunicatorFactory make;           ///< the configurations' communicators
  std::optional<mpi::BoundDevice> device;  ///< this rank's CUDA device (nccl only)
  /// This rank's device context for the launch (nccl: its device::CudaContext, which `make`'s
  /// communicators use); null for mpi. Held for the whole launch.
  std::shared_ptr<core::Device> context;
  std::string cuda_runtime;  ///< /system cuda_runtime (nccl only)
  std::string nccl_version;  ///< /system nccl_version (nccl only)
};

/// Collective over `world`: chooses the backend for job.comm.backend (core::choose_backend;
/// only the collective benchmark runs on device memory today) and, for NCCL, binds each rank
/// to device local_rank % visible devices (mpi::device_for_rank) by creating its one
/// device::CudaContext for the launch, which every configuration's NcclCommunicator shares. "auto"
/// picks NCCL only when every rank can use it. Throws core::BackendUnavailable on every rank, with
/// the message of the lowest failing rank, when the requested backend cannot run.
RunBackend choose_run_backend(const job::JobSpec& job, MPI_Comm world);

}  // namespace scaletune::cli
