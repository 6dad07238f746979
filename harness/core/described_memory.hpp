#pragma once
// Memory that is described, not held: the describing backend (kernels/describe) gives each
// allocation addresses from a range no process can map (the upper half of the address space,
// which belongs to the kernel), so the communicators of a described step can tell a described
// buffer, whose contents do not exist, from host memory a workload really exchanges (a rank's
// memory budget, a profile's times).

#include <cstdint>

namespace scaletune::core {

/// First address of the described range: 2^63.
inline constexpr std::uintptr_t kDescribedAddressBase = std::uintptr_t{1} << 63;

/// True for null and for addresses of described memory (>= kDescribedAddressBase).
inline bool is_described(const void* p) {
  return p == nullptr || reinterpret_cast<std::uintptr_t>(p) >= kDescribedAddressBase;
}

}  // namespace scaletune::core
