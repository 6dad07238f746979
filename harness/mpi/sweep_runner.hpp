#pragma once
// Runs a whole sweep under one MPI launch: every configuration with ranks <= world size on a
// sub-communicator of `ranks` ranks that takes whole nodes first (placement.hpp; the others wait),
// the rest recorded as skipped. Rank 0 writes each configuration to the result file as soon as it
// finishes, and flushes.

#include <mpi.h>

#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/job/job.hpp"
#include "harness/mpi/communicator_factory.hpp"
#include "harness/mpi/config_kinds.hpp"
#include "harness/mpi/system_info.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// The result file cannot be created or opened (bad --out or job.output): nothing was run.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Writing the result file failed part-way through the sweep (no space, a quota, an I/O
/// error): thrown on every rank. what() names the file, the OS error and the configuration that
/// is not in the file; the file holds every configuration written before it, whole.
class WriteFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A configuration left a rank's device unusable (core::FatalDeviceError, e.g. a sticky CUDA
/// error): it was recorded as error with that rank's message, and the sweep stopped before the
/// next configuration, since nothing more can run on that device in this process. Thrown on
/// every rank. what(): "stopped after <config id>: the CUDA context of rank <R> is unusable
/// (<message>); the configurations before it are stored; rerun with --resume".
class SweepStopped : public std::runtime_error {
 public:
  /// `world_rank`: the failed rank in the sweep's communicator; `message`: its error.
  SweepStopped(std::string config_id, int world_rank, std::string message);
  /// The configuration that was running.
  const std::string& config_id() const { return m_config_id; }
  /// The rank whose device is unusable, in the communicator the sweep ran over.
  int world_rank() const { return m_world_rank; }
  /// That rank's error message.
  const std::string& device_error() const { return m_device_error; }

 private:
  std::string m_config_id;
  int m_world_rank;
  std::string m_device_error;
};

/// A signal (SIGTERM, SIGINT: cancel_request.hpp) stopped the sweep: the configuration running
/// then is recorded as cancelled, none after it runs. Thrown on every rank. what():
/// "cancelled by SIGTERM during <config id> (recorded as cancelled); the configurations before
/// it are stored; rerun with --resume" ("before <config id>" when none was running).
class SweepCancelled : public std::runtime_error {
 public:
  /// `signal`: the signal's number; `during`: whether configuration `config_id` was running.
  SweepCancelled(int signal, const std::string& config_id, bool during);
};

/// How to run a sweep.
struct SweepOptions {
  std::string out_path;            ///< result file (HDF5)
  bool resume = false;             ///< keep the file's configurations and skip those stored as ok
  results::Provenance provenance;  ///< root attributes (created_utc and job_toml filled in here)
  std::string blas;                ///< host BLAS description for /system
  /// The configurations' communicators (NCCL or MPI; training workloads on CUDA need a
  /// device-memory one).
  CommunicatorFactory make_communicator = mpi_communicator_factory();
  /// This rank's compute device for the launch (a CUDA context or the host), outliving the
  /// sweep; nullptr: the host.
  core::Device* rank_device = nullptr;
  /// Where every workload computes: /system and every configuration record it.
  core::DeviceKind device_kind = core::DeviceKind::host;
  /// How each kind's configurations run (must outlive the sweep; required).
  const ConfigKinds* kinds = nullptr;
  /// This rank's device for /system/ranks; nullopt: the host core it runs on.
  std::optional<BoundDevice> device;
  std::string cuda_runtime;  ///< /system cuda_runtime, empty when no CUDA runtime was used
  std::string nccl_version;  ///< /system nccl_version, empty when NCCL was not used
};

/// What a sweep did, the same on every rank.
struct SweepSummary {
  int ran = 0;      ///< configurations run in this launch
  int ok = 0;       ///< of those, how many finished with status ok
  int failed = 0;   ///< oom, timeout or error
  int skipped = 0;  ///< needed more ranks than the launch had
  int resumed = 0;  ///< already stored as ok, not run again
};

/// Collective over `world`. Progress lines go to `progress` on rank 0. Throws OutputError (on
/// every rank) when the result file cannot be created or opened, before anything runs,
/// WriteFailed (on every rank) when writing it fails for want of room (then or after a
/// configuration), and SweepStopped (on every rank) once
/// a configuration that left a rank's device unusable is recorded, and SweepCancelled (on every
/// rank) once a signal asked a rank to stop (install_cancel_handlers); configurations already
/// written stay. Aborts the launch (MPI_Abort) after recording the running configuration on
/// rank 0 when it cannot end: as timeout once it outlives hard_limit_s (watchdog.hpp), as error
/// when a rank's workload threw and the others were still waiting for it stranded_grace_s later
/// (failure_watch.hpp; needs MPI_THREAD_MULTIPLE).
SweepSummary run_sweep(const job::JobSpec& job, const std::vector<job::Config>& configs,
                       const SweepOptions& options, MPI_Comm world, std::ostream& progress);

/// UTC now as ISO 8601 ("2026-11-30T03:00:00Z").
std::string utc_now();

}  // namespace scaletune::mpi
