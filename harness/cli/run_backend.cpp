#include "run_backend.hpp"

#include <memory>
#include <utility>

#include "harness/core/backend_choice.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/device_binding.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/status_agreement.hpp"
#ifdef SCALETUNE_HAVE_NCCL
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/nccl/nccl_communicator.hpp"
#include "harness/nccl/nccl_version.hpp"
#endif

namespace scaletune::cli {

namespace {

#ifdef SCALETUNE_HAVE_NCCL
constexpr bool kNcclBuilt = true;
int cuda_devices() {
  return device::device_count();
}
#else
constexpr bool kNcclBuilt = false;
int cuda_devices() {
  return 0;
}
#endif

// This rank's choice, or why the requested backend cannot run here.
struct LocalChoice {
  std::string name;
  std::string error;
};

LocalChoice local_choice(const job::JobSpec& job, int devices) {
  const bool on_device = job.workload.kind == "collectives";
  try {
    return {core::choose_backend(job.comm.backend, on_device, kNcclBuilt, devices), ""};
  } catch (const core::BackendUnavailable& e) {
    return {"", e.what()};
  }
}

// NCCL on this rank's device: the factory and what /system records.
RunBackend nccl_backend([[maybe_unused]] MPI_Comm world, [[maybe_unused]] int devices) {
  RunBackend b;
  b.name = "nccl";
#ifdef SCALETUNE_HAVE_NCCL
  const int ordinal = mpi::device_for_rank(mpi::local_rank(world), devices);
  auto context = std::make_shared<device::CudaContext>(ordinal);
  b.device = mpi::BoundDevice{context->name(), context->info().memory_bytes};
  b.cuda_runtime = device::runtime_version();
  b.nccl_version = nccl::nccl_version();
  b.make = [context](MPI_Comm comm) {
    return std::make_unique<nccl::NcclCommunicator>(comm, *context);
  };
  b.context = std::move(context);
#endif
  return b;
}

}  // namespace

RunBackend choose_run_backend(const job::JobSpec& job, MPI_Comm world) {
  const int devices = cuda_devices();
  const LocalChoice choice = local_choice(job, devices);
  const mpi::AgreedStatus agreed = mpi::agree_status(
      world, choice.error.empty() ? results::Status::ok : results::Status::error, choice.error);
  if (agreed.status != results::Status::ok) throw core::BackendUnavailable(agreed.error);
  int nccl_everywhere = choice.name == "nccl" ? 1 : 0;
  SCALETUNE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &nccl_everywhere, 1, MPI_INT, MPI_MIN, world));
  if (nccl_everywhere) return nccl_backend(world, devices);
  return RunBackend{"mpi", mpi::mpi_communicator_factory(), std::nullopt, nullptr, "", ""};
}

}  // namespace scaletune::cli
