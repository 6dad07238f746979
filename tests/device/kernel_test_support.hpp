#pragma once
// Helpers the device tests of the embedding, interaction, pooling and batch-norm kernels share:
// 16-bit copies of host data (the bits Eigen's half and bfloat16 give, which the kernels' Fp16
// and Bf16 hold), values rounded to a 16-bit type and back, bit patterns of floats, and NHWC
// copies of NCHW tensors.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace scaletune::kernels::cuda::testing {

/// The bits of v rounded to nearest even into `dtype` (fp16 or bf16), as Eigen converts.
inline std::uint16_t half_bits(float v, core::DType dtype) {
  if (dtype == core::DType::fp16) return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(v));
  return Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(v));
}

/// The float a 16-bit value of `dtype` holds (exact).
inline float half_value(std::uint16_t bits, core::DType dtype) {
  if (dtype == core::DType::fp16)
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
}

/// Every value of `values` as `dtype` bits.
inline std::vector<std::uint16_t> to_half_bits(std::span<const float> values, core::DType dtype) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = half_bits(values[i], dtype);
  return bits;
}

/// Every value of `bits` (of `dtype`) as float.
inline std::vector<float> from_half_bits(std::span<const std::uint16_t> bits, core::DType dtype) {
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = half_value(bits[i], dtype);
  return values;
}

/// `values` rounded to `dtype` and back (unchanged for fp32): the inputs a 16-bit kernel sees.
inline std::vector<float> rounded_to(std::span<const float> values, core::DType dtype) {
  if (dtype == core::DType::fp32) return {values.begin(), values.end()};
  return from_half_bits(to_half_bits(values, dtype), dtype);
}

/// The bit patterns of `values` (for exact comparisons that tell -0 from +0).
inline std::vector<std::uint32_t> float_bits(std::span<const float> values) {
  std::vector<std::uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

/// The NHWC copy of an NCHW tensor [n, c, h, w] (flat, row-major).
inline std::vector<float> nchw_to_nhwc(std::span<const float> x, std::size_t n, std::size_t c,
                                       std::size_t h, std::size_t w) {
  std::vector<float> out(x.size());
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t s = 0; s < h * w; ++s)
        out[(b * h * w + s) * c + ch] = x[(b * c + ch) * h * w + s];
  return out;
}

/// Relative tolerance of a comparison with a host op for values computed in `dtype`: fp32
/// 1e-5; bf16 1e-2 and fp16 2e-3 (a few units of their last place).
inline double tolerance_of(core::DType dtype) {
  if (dtype == core::DType::bf16) return 1e-2;
  if (dtype == core::DType::fp16) return 2e-3;
  return 1e-5;
}

/// Values on the device stored as `dtype`: fp32 as they are, fp16 or bf16 rounded to nearest even.
class DeviceValues {
 public:
  /// A device copy of `host` in `dtype`.
  DeviceValues(std::span<const float> host, core::DType dtype) : m_dtype(dtype) {
    if (dtype == core::DType::fp32)
      m_fp32 = DeviceBuffer<float>(host);
    else
      m_half =
          DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(to_half_bits(host, dtype)));
  }
  /// `count` uninitialised values of `dtype`.
  DeviceValues(std::size_t count, core::DType dtype) : m_dtype(dtype) {
    if (dtype == core::DType::fp32)
      m_fp32 = DeviceBuffer<float>(count);
    else
      m_half = DeviceBuffer<std::uint16_t>(count);
  }

  core::DType dtype() const { return m_dtype; }
  void* data() {
    return m_dtype == core::DType::fp32 ? static_cast<void*>(m_fp32.data()) : m_half.data();
  }
  const void* data() const {
    return m_dtype == core::DType::fp32 ? static_cast<const void*>(m_fp32.data()) : m_half.data();
  }
  /// The values as floats (exact).
  std::vector<float> to_host() const {
    if (m_dtype == core::DType::fp32) return m_fp32.to_host();
    return from_half_bits(m_half.to_host(), m_dtype);
  }
  /// The stored bits of a 16-bit buffer.
  std::vector<std::uint16_t> half_bits_on_host() const { return m_half.to_host(); }

 private:
  core::DType m_dtype;
  DeviceBuffer<float> m_fp32;
  DeviceBuffer<std::uint16_t> m_half;
};

}  // namespace scaletune::kernels::cuda::testing
