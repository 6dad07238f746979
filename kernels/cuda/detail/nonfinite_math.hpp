#pragma once
// Per-element body of the non-finite check (nonfinite.hpp): a value is NaN or +-inf exactly
// when its exponent field is all ones, tested on the stored bits without a conversion.

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Whether an element is finite (not NaN, not +-inf).
SCALETUNE_HOST_DEVICE inline bool is_finite_element(float value) {
  return (float_bits(value) & 0x7f800000u) != 0x7f800000u;
}
SCALETUNE_HOST_DEVICE inline bool is_finite_element(Fp16 value) {
  return (value.bits & 0x7c00u) != 0x7c00u;
}
SCALETUNE_HOST_DEVICE inline bool is_finite_element(Bf16 value) {
  return (value.bits & 0x7f80u) != 0x7f80u;
}

}  // namespace scaletune::kernels::cuda::detail
