#pragma once
// The iteration range every host op runs its parallel loops over.

#include <cstddef>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// Kokkos::RangePolicy over [0, count) on the host execution space; both bounds are
/// std::size_t so no Kokkos version warns about a narrowing bound conversion.
inline Kokkos::RangePolicy<HostExec> host_range(std::size_t count) {
  return Kokkos::RangePolicy<HostExec>(std::size_t{0}, count);
}

}  // namespace scaletune::kernels::detail
