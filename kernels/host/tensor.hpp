#pragma once
// Host tensor types every op uses. All are LayoutRight (row-major, last index fastest) in
// Kokkos::HostSpace. Views built from a raw pointer are unmanaged: parameters and gradients are
// such windows into one flat buffer, so the gradient all-reduce sees them as one span.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace scaletune::kernels {

/// Execution space of host ops (Serial in Debian's Kokkos; one rank stands for one device).
using HostExec = Kokkos::DefaultHostExecutionSpace;
/// [N, C, H, W] activations, or [K, C, R, S] convolution weights.
using Tensor4 = Kokkos::View<float****, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [N, F] matrices (fully-connected activations, logits) or [O, F] weights.
using Tensor2 = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [N, F, D] stacks of feature vectors (the DLRM interaction's inputs: F vectors of D values
/// per sample).
using Tensor3 = Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [n] vectors: per-channel parameters, flat parameter and gradient buffers, workspaces.
using Vector = Kokkos::View<float*, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [N] class labels.
using Labels = Kokkos::View<int*, Kokkos::LayoutRight, Kokkos::HostSpace>;
/// [n] 64-bit indices: embedding row ids, CSR offsets, sparse-gradient row ids.
using IndexVector = Kokkos::View<std::int64_t*, Kokkos::LayoutRight, Kokkos::HostSpace>;

}  // namespace scaletune::kernels
