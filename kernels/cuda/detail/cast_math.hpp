#pragma once
// Element types of activations on the device and their conversions to and from fp32: the
// per-element body of every kernel that loads or stores a 16-bit value. Values are loaded to
// float exactly and stored with round-to-nearest-even (IEEE 754 roundTiesToEven), as Eigen's
// half and bfloat16 (the host ops' 16-bit types, kernels/host/half_table.hpp) convert. On the
// device the hardware conversions (cvt.rn) run; on the host the bit manipulations below, which
// the unit tests check bit for bit against Eigen (NaN payloads aside: any NaN stays a NaN).

#include <cstdint>
#include <cstring>

#include "kernels/cuda/detail/host_device.hpp"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace scaletune::kernels::cuda::detail {

/// Storage of one IEEE 754 binary16 value (the bits of a __half).
struct Fp16 {
  std::uint16_t bits;
};

/// Storage of one bfloat16 value (the bits of a __nv_bfloat16: fp32's top 16 bits).
struct Bf16 {
  std::uint16_t bits;
};

/// The bits of `value`.
SCALETUNE_HOST_DEVICE inline std::uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

/// The float whose bits are `bits`.
SCALETUNE_HOST_DEVICE inline float bits_float(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

/// Rounds the non-negative finite fp32 `abs_bits` below 2^-14 (half's smallest normal) to a
/// binary16 subnormal (or zero, or 2^-14 when it rounds up): the count of 2^-24 units, ties to
/// even.
SCALETUNE_HOST_DEVICE inline std::uint16_t half_subnormal_bits(std::uint32_t abs_bits) {
  const std::uint32_t exponent = abs_bits >> 23;
  if (exponent < 102) return 0;  // below 2^-25: rounds to zero (2^-25 itself is a tie to 0)
  const std::uint32_t mantissa = (abs_bits & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126 - exponent;  // value = mantissa * 2^-24 / 2^shift, shift 14..24
  std::uint32_t units = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  const std::uint32_t half_unit = 1u << (shift - 1);
  if (rest > half_unit || (rest == half_unit && (units & 1u) != 0)) ++units;
  return static_cast<std::uint16_t>(units);
}

/// fp32 -> binary16, round to nearest even; overflow to +-inf from 65520 up (the tie above
/// 65504 rounds to even, i.e. up), NaN to a quiet NaN.
SCALETUNE_HOST_DEVICE inline std::uint16_t float_to_half_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(value));
#else
  const std::uint32_t bits = float_bits(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (abs_bits >= 0x477ff000u) return sign | 0x7c00u;  // |value| >= 65520: inf
  if (abs_bits < 0x38800000u) return sign | half_subnormal_bits(abs_bits);
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to even; a
  // carry out of the mantissa correctly bumps the exponent.
  const std::uint32_t rounded = abs_bits + 0xfffu + ((abs_bits >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
#endif
}

/// binary16 -> fp32 (exact).
SCALETUNE_HOST_DEVICE inline float half_bits_to_float(std::uint16_t half) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(half));
#else
  const std::uint32_t sign = (std::uint32_t{half} & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  const std::uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1.0p-24f;
    return bits_float(sign | float_bits(magnitude));
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
#endif
}

/// fp32 -> bfloat16, round to nearest even (overflow to +-inf), NaN to a quiet NaN.
SCALETUNE_HOST_DEVICE inline std::uint16_t float_to_bf16_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __bfloat16_as_ushort(__float2bfloat16_rn(value));
#else
  const std::uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
#endif
}

/// bfloat16 -> fp32 (exact: the 16 bits are fp32's top half).
SCALETUNE_HOST_DEVICE inline float bf16_bits_to_float(std::uint16_t bf16) {
  return bits_float(std::uint32_t{bf16} << 16);
}

/// A stored element as float (exact for every element type).
SCALETUNE_HOST_DEVICE inline float to_float(float value) {
  return value;
}
SCALETUNE_HOST_DEVICE inline float to_float(Fp16 value) {
  return half_bits_to_float(value.bits);
}
SCALETUNE_HOST_DEVICE inline float to_float(Bf16 value) {
  return bf16_bits_to_float(value.bits);
}

/// `value` stored as element type T (float, Fp16 or Bf16), rounded to nearest even.
template <class T>
SCALETUNE_HOST_DEVICE T from_float(float value);

template <>
SCALETUNE_HOST_DEVICE inline float from_float<float>(float value) {
  return value;
}
template <>
SCALETUNE_HOST_DEVICE inline Fp16 from_float<Fp16>(float value) {
  return Fp16{float_to_half_bits(value)};
}
template <>
SCALETUNE_HOST_DEVICE inline Bf16 from_float<Bf16>(float value) {
  return Bf16{float_to_bf16_bits(value)};
}

/// The cast kernel's body: `value` converted to Dst through fp32.
template <class Dst, class Src>
SCALETUNE_HOST_DEVICE Dst cast_element(Src value) {
  return from_float<Dst>(to_float(value));
}

/// The accumulate-cast kernel's body: dst + value in fp32 (dst is an fp32 accumulator).
template <class Src>
SCALETUNE_HOST_DEVICE float accumulate_cast_element(float dst, Src value) {
  return dst + to_float(value);
}

}  // namespace scaletune::kernels::cuda::detail
