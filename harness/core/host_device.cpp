#include "host_device.hpp"

#include <sched.h>

#include <Kokkos_Core.hpp>

#include "harness/core/memory_budget.hpp"

namespace scaletune::core {

std::string HostDevice::name() const {
  return "host-core:" + std::to_string(sched_getcpu());
}

std::int64_t HostDevice::memory_free_bytes() const {
  return available_memory_bytes();
}

void HostDevice::fence() {
  Kokkos::fence();
}

}  // namespace scaletune::core
