#pragma once
// The host core a rank runs on, as a core::Device (Kokkos Serial: one rank, one core).

#include <cstdint>
#include <string>

#include "harness/core/device.hpp"

namespace scaletune::core {

/// The calling process's host core.
class HostDevice final : public Device {
 public:
  HostDevice() = default;
  HostDevice(const HostDevice&) = delete;
  HostDevice& operator=(const HostDevice&) = delete;

  /// DeviceKind::host.
  DeviceKind kind() const override { return DeviceKind::host; }
  /// "host-core:<cpu>", the core the process runs on now (sched_getcpu), as /system/ranks
  /// describes host ranks.
  std::string name() const override;
  /// available_memory_bytes() (memory_budget.hpp): the node's, not this rank's share; bytes.
  std::int64_t memory_free_bytes() const override;
  /// Kokkos::fence(): waits for the default execution space.
  void fence() override;
};

}  // namespace scaletune::core
