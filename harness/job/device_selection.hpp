#pragma once
// Where a launch runs ([devices] kind) from what its ranks see of CUDA, whether its devices
// serve a precision, and which precisions each workload kind trains in on the host. Pure
// decisions: no CUDA call here; the runner gathers one RankDevices per rank and calls these.

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/job/option_values.hpp"

namespace scaletune::job {

/// The device kind a launch runs on: [devices] kind resolved by choose_device_kind.
enum class DeviceKind {
  host,  ///< CPU cores, one rank per core
  cuda,  ///< one CUDA device per rank
};

/// "host", "cuda": the device_kind attribute of /system and of every /configs/<id>.
std::string_view device_kind_text(DeviceKind kind);

/// What one rank of a launch sees of CUDA, for choose_device_kind and
/// check_precision_on_devices. The runner fills one per rank and gathers them.
struct RankDevices {
  int rank = 0;                ///< rank in the launch's world communicator
  std::string host;            ///< the rank's host name (MPI_Get_processor_name)
  int cuda_devices = 0;        ///< devices cudaGetDeviceCount reports; 0 without a driver or device
  std::string device;          ///< the device the rank binds to (cudaDeviceProp::name); "" if none
  int compute_capability = 0;  ///< that device's, 10 x major + minor (80 for 8.0); 0 if none
};

/// Whether the rank's device computes in bfloat16: compute capability 8.0 or higher (CUDA C++
/// Programming Guide: the __nv_bfloat16 arithmetic and tensor-core bf16 MMA need sm_80).
bool supports_bf16(const RankDevices& rank);

/// The job's [devices] kind or precision cannot run on the launch's devices. what() names the
/// rank, its host and what to use instead.
class DeviceUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The device kind of a launch whose ranks are `ranks` (one entry per rank), in a build with
/// CUDA (`cuda_built`) or without:
/// - DeviceKindRequest::host: host.
/// - auto_select: cuda when the build has CUDA and every rank (at least one) sees >= 1 device;
///   host otherwise.
/// - cuda: cuda. Throws DeviceUnavailable when the build has no CUDA, or naming the lowest rank
///   without a device, its host and how many ranks lack one, with what to use instead
///   ([devices] kind = "host" or "auto"); also for an empty `ranks`.
DeviceKind choose_device_kind(DeviceKindRequest request, std::span<const RankDevices> ranks,
                              bool cuda_built);

/// Throws DeviceUnavailable when a configuration in `precision` cannot run on the `ranks`'
/// devices of kind `kind`: bf16 on cuda where a rank's device lacks bf16 (supports_bf16); the
/// message names the lowest such rank, its host, the device and its compute capability, and
/// fp16 or fp32 instead. fp32 and fp16 run on any CUDA device; for kind host it checks nothing
/// (the host's rule is precision_supported_on_host).
void check_precision_on_devices(DataType precision, DeviceKind kind,
                                std::span<const RankDevices> ranks);

/// Whether workload kind `kind` ("resnet50", "dlrm", ...) trains in `precision` on the host:
/// dlrm in every kTrainingPrecisions value (16 bits is its tables' storage, computed in fp32),
/// resnet50 and transformer in fp32 only; true for a kind without [sweep] precision
/// (collectives, whose dtype runs anywhere). The parser refuses the rest with devices.kind =
/// "host"; with "auto" the runner calls this once the launch's kind is known. Throws
/// std::out_of_range for an unknown kind.
bool precision_supported_on_host(std::string_view kind, DataType precision);

/// Why kind `kind` cannot train in `precision` on the host and what to use instead, e.g.
/// "precision "bf16" of workload.kind = "resnet50" needs CUDA devices (16-bit activations and
/// tensor-core GEMMs); on the host resnet50 trains in fp32 only: use precision "fp32"". Throws
/// std::out_of_range for an unknown kind.
std::string unsupported_on_host_message(std::string_view kind, DataType precision);

}  // namespace scaletune::job
