#include "run_backend.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "harness/core/backend_choice.hpp"
#include "harness/core/host_device.hpp"
#include "harness/job/device_selection.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/device_binding.hpp"
#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_error.hpp"
#ifdef SCALETUNE_HAVE_NCCL
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/nccl/nccl_communicator.hpp"
#include "harness/nccl/nccl_version.hpp"
#endif

namespace scaletune::cli {

namespace {

constexpr std::size_t kDeviceNameBytes = 256;  // cudaDeviceProp::name

#ifdef SCALETUNE_HAVE_NCCL
constexpr bool kCudaBuilt = true;

// This rank's CUDA devices and the one it would bind to.
job::RankDevices local_devices(MPI_Comm world) {
  job::RankDevices mine;
  mine.cuda_devices = device::device_count();
  if (mine.cuda_devices == 0) return mine;
  const device::DeviceInfo info =
      device::device_info(mpi::device_for_rank(mpi::local_rank(world), mine.cuda_devices));
  mine.device = info.name;
  mine.compute_capability = 10 * info.compute_major + info.compute_minor;
  return mine;
}
#else
constexpr bool kCudaBuilt = false;

job::RankDevices local_devices(MPI_Comm) {
  return {};
}
#endif

// Every rank's RankDevices (rank, host, device count, device name, compute capability).
std::vector<job::RankDevices> gathered_devices(MPI_Comm world) {
  const job::RankDevices mine = local_devices(world);
  const std::vector<std::string> hosts = mpi::host_names(world);
  const std::vector<std::string> names = mpi::gathered_text(world, mine.device, kDeviceNameBytes);
  const int facts[2] = {mine.cuda_devices, mine.compute_capability};
  std::vector<int> all(2 * hosts.size());
  SCALETUNE_MPI_CHECK(MPI_Allgather(facts, 2, MPI_INT, all.data(), 2, MPI_INT, world));
  std::vector<job::RankDevices> ranks(hosts.size());
  for (std::size_t r = 0; r < ranks.size(); ++r)
    ranks[r] = {static_cast<int>(r), hosts[r], all[2 * r], names[r], all[2 * r + 1]};
  return ranks;
}

// Throws core::BackendUnavailable when a training workload would hand device memory to MPI.
void require_device_communicator(const job::JobSpec& job, core::DeviceKind kind,
                                 const std::string& backend) {
  if (kind != core::DeviceKind::cuda || backend != "mpi" || job.workload.kind == "collectives")
    return;
  throw core::BackendUnavailable(
      "comm.backend = \"mpi\" cannot serve workload.kind = \"" + job.workload.kind +
      "\" on CUDA devices: its gradients live in device memory and this Open MPI is not "
      "CUDA-aware; use comm.backend = \"nccl\" or \"auto\", or [devices] kind = \"host\"");
}

// This rank's CUDA device, NCCL or MPI communicators on it and what /system records; an NCCL
// communicator gives up a wait after `wait_limit_s` (run.timeout_s).
RunBackend cuda_backend([[maybe_unused]] MPI_Comm world, [[maybe_unused]] const std::string& name,
                        [[maybe_unused]] double wait_limit_s) {
  RunBackend b;
  b.device_kind = core::DeviceKind::cuda;
  b.name = name;
#ifdef SCALETUNE_HAVE_NCCL
  const int ordinal = mpi::device_for_rank(mpi::local_rank(world), device::device_count());
  auto context = std::make_shared<device::CudaContext>(ordinal);
  b.bound = mpi::BoundDevice{context->name(), context->info().memory_bytes};
  b.cuda_runtime = device::runtime_version();
  if (name == "nccl") {
    b.nccl_version = nccl::nccl_version();
    b.make = [context, wait_limit_s](MPI_Comm comm) {
      return std::make_unique<nccl::NcclCommunicator>(comm, *context, wait_limit_s);
    };
  } else {
    b.make = mpi::mpi_communicator_factory();
  }
  b.device = std::move(context);
#endif
  return b;
}

}  // namespace

RunBackend choose_run_backend(const job::JobSpec& job, MPI_Comm world) {
  const std::vector<job::RankDevices> ranks = gathered_devices(world);
  const core::DeviceKind kind = job::choose_device_kind(job.devices.kind, ranks, kCudaBuilt);
  for (const job::DataType precision : job.sweep.precision)
    job::check_precision_on_devices(precision, kind, ranks);
  const std::string name = core::choose_backend(job.comm.backend, kind, kCudaBuilt);
  require_device_communicator(job, kind, name);
  if (kind == core::DeviceKind::cuda) return cuda_backend(world, name, job.run.timeout_s);
  RunBackend b;
  b.name = name;
  b.make = mpi::mpi_communicator_factory();
  b.device = std::make_shared<core::HostDevice>();
  return b;
}

void use_backend(mpi::SweepOptions& options, RunBackend& backend) {
  options.make_communicator = std::move(backend.make);
  options.rank_device = backend.device.get();
  options.device_kind = backend.device_kind;
  options.device = backend.bound;
  options.cuda_runtime = backend.cuda_runtime;
  options.nccl_version = backend.nccl_version;
}

}  // namespace scaletune::cli
