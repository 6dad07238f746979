#pragma once
// Embedding tables stored in 16-bit floats (Eigen's half and bfloat16), kept apart from
// tensor.hpp so that only the ops that take them parse Eigen.

#include <Eigen/Core>
#include <Kokkos_Core.hpp>

namespace scaletune::kernels {

/// [R, D] embedding table stored in IEEE fp16 (Eigen::half, 2 bytes a value) and computed in
/// fp32: ops convert each value to float on load and round to nearest even on store.
using Fp16Table = Kokkos::View<Eigen::half**, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [R, D] embedding table stored in bfloat16 (Eigen::bfloat16: fp32's 8-bit exponent, 7-bit
/// mantissa, 2 bytes a value) and computed in fp32, converted as for Fp16Table.
using Bf16Table = Kokkos::View<Eigen::bfloat16**, Kokkos::LayoutRight, Kokkos::HostSpace>;

}  // namespace scaletune::kernels
