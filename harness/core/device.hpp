#pragma once
// The device one rank computes on, as the harness sees it: a host core (Kokkos Serial) or a
// CUDA device (device::CudaContext in harness/device). No CUDA here.

#include <cstdint>
#include <string>

namespace scaletune::core {

/// What kind of device a rank computes on.
enum class DeviceKind { host, cuda };

/// The device one rank computes on. Implementations are not copyable (they own the rank's
/// streams and library handles, or stand for its core).
class Device {
 public:
  virtual ~Device() = default;
  /// host or cuda.
  virtual DeviceKind kind() const = 0;
  /// As /system/ranks records devices: "host-core:3", "cuda:0 NVIDIA H200".
  virtual std::string name() const = 0;
  /// Memory the device could still give, bytes (host: the node's available memory, shared by
  /// its ranks; the rank's budget, core::host_memory_budget_bytes, is the runner's business);
  /// 0 when unknown.
  virtual std::int64_t memory_free_bytes() const = 0;
  /// Returns once all work queued on the device (every stream) has completed.
  virtual void fence() = 0;
};

}  // namespace scaletune::core
