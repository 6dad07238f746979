#pragma once
// Per-element body of the dropout kernels (dropout.hpp): the host's counter-based mask
// (kernels/host/dropout.cpp, kernels/host/detail/splitmix64.hpp) reproduced bit for bit.
// Element e of the tensor (global index (first_row + n) * cols + f) is kept when
// unit = (splitmix64(stream ^ splitmix64(e)) >> 11) * 2^-53 >= p, stream = splitmix64(seed ^
// splitmix64(step)). unit is k * 2^-53 for the integer k = hash >> 11, and p * 2^53 is exact in
// double, so unit >= p exactly when k >= ceil(p * 2^53): the device compares integers and
// needs no double arithmetic.

#include <cmath>
#include <cstdint>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/host_device.hpp"
#include "kernels/host/detail/splitmix64.hpp"

namespace scaletune::kernels::cuda::detail {

/// The host's SplitMix64 (a constexpr function, so device code may call it: nvcc runs with
/// --expt-relaxed-constexpr).
using kernels::detail::splitmix64;

/// The hash stream of one dropout call: splitmix64(seed ^ splitmix64(step)).
SCALETUNE_HOST_DEVICE constexpr std::uint64_t dropout_stream(std::uint64_t seed,
                                                             std::uint64_t step) {
  return splitmix64(seed ^ splitmix64(step));
}

/// ceil(p * 2^53) for p in [0, 1): element hashes whose top 53 bits reach it are kept.
inline std::uint64_t dropout_keep_threshold(float p) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(p) * 0x1.0p53));
}

/// Whether global element `element` is kept (the host's `unit >= p`).
SCALETUNE_HOST_DEVICE constexpr bool dropout_keep(std::uint64_t stream, std::uint64_t element,
                                                  std::uint64_t threshold) {
  return (splitmix64(stream ^ splitmix64(element)) >> 11) >= threshold;
}

/// The kernels' body: x * scale when kept (scale = 1 / (1 - p) in fp32, as the host), else 0.
template <class T>
SCALETUNE_HOST_DEVICE T dropout_element(T x, bool keep, float scale) {
  return from_float<T>(keep ? to_float(x) * scale : 0.0f);
}

}  // namespace scaletune::kernels::cuda::detail
