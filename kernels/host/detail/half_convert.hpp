#pragma once
// Conversions between fp32 and the 16-bit table types (Fp16Table, Bf16Table) that the host ops
// share: one value at a time inline, for loops the compiler vectorizes, and whole spans compiled
// for each HostIsa (F16C's instructions for fp16 where the CPU has them).

#include <bit>
#include <cstdint>
#include <span>

#include "kernels/host/half_table.hpp"
#include "kernels/host/host_isa.hpp"

namespace scaletune::kernels::detail {

/// A stored value as fp32 (exact). fp16 goes through Eigen's conversion, bit arithmetic without
/// F16C that GCC 12 vectorizes only in part.
[[gnu::always_inline]] inline float widen(const float& value) {
  return value;
}
[[gnu::always_inline]] inline float widen(const Eigen::half& value) {
  return static_cast<float>(value);
}

/// bf16: its raw bits (Eigen's public `value`) are the top half of an fp32, by definition: a
/// zero-extend and a shift, which vectorize. Eigen's own conversion copies the object through
/// memcpy, which left loops scalar (measured: 0.14 of triad against 0.5 to 0.7 with the shift).
[[gnu::always_inline]] inline float widen(const Eigen::bfloat16& value) {
  return std::bit_cast<float>(std::uint32_t{value.value} << 16);
}

/// The bits of Eigen::bfloat16(x): rounded to nearest, ties to even (add 0x7fff plus the kept
/// lowest bit, drop the low half; overflow carries into infinity), and a NaN becomes the quiet
/// NaN 0x7fc0 with x's sign. Branch-free integer arithmetic with one select, so loops of it
/// vectorize; Eigen's version branches on isnan and copies through memcpy.
[[gnu::always_inline]] inline std::uint16_t bf16_bits(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const std::uint32_t quiet_nan = ((bits >> 16) & 0x8000u) | 0x7fc0u;
  const bool is_nan = (bits & 0x7fffffffu) > 0x7f800000u;
  return static_cast<std::uint16_t>(is_nan ? quiet_nan : rounded);
}

/// dst[i] = float(src[i]) for every i, with the variant compiled for `isa`: exact. NaNs keep
/// their sign and payload; with F16C (kAvx2, kAvx512) a signalling fp16 NaN comes out quiet, as
/// IEEE 754's conversion says, where Eigen's bit arithmetic keeps it signalling (any arithmetic
/// on the result quiets it either way). Throws std::invalid_argument when the sizes differ or
/// isa is not available.
void to_float(HostIsa isa, std::span<const Eigen::half> src, std::span<float> dst);
void to_float(HostIsa isa, std::span<const Eigen::bfloat16> src, std::span<float> dst);

/// dst[i] = T(src[i]) for every i, with the variant compiled for `isa`: bit for bit Eigen's
/// conversion (round to nearest, ties to even, overflow to infinity, subnormal results kept; a
/// NaN becomes the quiet NaN 0x7e00 (fp16) or 0x7fc0 (bf16) with its sign). Throws
/// std::invalid_argument when the sizes differ or isa is not available.
void from_float(HostIsa isa, std::span<const float> src, std::span<Eigen::half> dst);
void from_float(HostIsa isa, std::span<const float> src, std::span<Eigen::bfloat16> dst);

}  // namespace scaletune::kernels::detail
