#pragma once
// Helpers of the device tests of the nvcc-compiled kernels (kernels/cuda/*.cu): device buffers
// of one activation element type built from host floats (rounded to nearest even as the kernels
// store), a stream owned by the test, the element types and their tolerances.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/core/dtype.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/detail/cast_math.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {

// The kernels' tests were written where the device runtime lived in this namespace.
using device::CudaError;
using device::device_count;
using device::DeviceBuffer;

}  // namespace scaletune::kernels::cuda

namespace scaletune::kernels::cuda::testing {

using device::testing::DeviceTest;
using device::testing::expect_all_close;
using device::testing::fill_uniform;
using device::testing::uniform_vector;
using device::testing::wait_for_device;

/// The activation element types every kernel takes, for parameterised tests.
inline constexpr core::DType kActivationTypes[] = {core::DType::fp32, core::DType::fp16,
                                                   core::DType::bf16};

/// Relative tolerance of a kernel's output of element type `type` against the host op on the
/// same (rounded) inputs: 1e-5 for fp32; for fp16 and bf16 a few units of their rounding
/// (2^-11 and 2^-8 relative).
inline double tolerance(core::DType type) {
  switch (type) {
    case core::DType::fp16:
      return 2e-3;
    case core::DType::bf16:
      return 1e-2;
    default:
      return 1e-5;
  }
}

/// Test-name suffix for a type parameter ("fp32", "fp16", "bf16").
inline std::string type_param_name(const ::testing::TestParamInfo<core::DType>& param_info) {
  return std::string(core::dtype_key(param_info.param));
}

/// One 16-bit pattern of `value` rounded to `type` (fp16 or bf16).
inline std::uint16_t sixteen_bits(core::DType type, float value) {
  return type == core::DType::fp16 ? detail::float_to_half_bits(value)
                                   : detail::float_to_bf16_bits(value);
}

/// The float a 16-bit pattern of `type` holds.
inline float sixteen_value(core::DType type, std::uint16_t bits) {
  return type == core::DType::fp16 ? detail::half_bits_to_float(bits)
                                   : detail::bf16_bits_to_float(bits);
}

/// `values` rounded to `type` and back (what a kernel reading `type` sees).
inline std::vector<float> rounded(core::DType type, std::span<const float> values) {
  std::vector<float> out(values.begin(), values.end());
  if (type == core::DType::fp32) return out;
  for (float& v : out) v = sixteen_value(type, sixteen_bits(type, v));
  return out;
}

/// Device activations of one element type: fp32 values, or the bits of fp16 / bf16 ones.
class DeviceActivations {
 public:
  /// values.size() elements holding `values` rounded to `type`.
  DeviceActivations(core::DType type, std::span<const float> values) : m_type(type) {
    if (type == core::DType::fp32) {
      m_fp32 = DeviceBuffer<float>(values);
      return;
    }
    std::vector<std::uint16_t> bits;
    bits.reserve(values.size());
    for (const float v : values) bits.push_back(sixteen_bits(type, v));
    m_bits = DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(bits));
  }

  /// `count` elements, every one `value` (rounded to `type`).
  DeviceActivations(core::DType type, std::size_t count, float value)
      : DeviceActivations(type, std::vector<float>(count, value)) {}

  void* data() {
    return m_type == core::DType::fp32 ? static_cast<void*>(m_fp32.data()) : m_bits.data();
  }
  const void* data() const {
    return m_type == core::DType::fp32 ? static_cast<const void*>(m_fp32.data()) : m_bits.data();
  }

  /// The elements as floats (copied back synchronously).
  std::vector<float> to_host() const {
    if (m_type == core::DType::fp32) return m_fp32.to_host();
    std::vector<float> out;
    for (const std::uint16_t b : m_bits.to_host()) out.push_back(sixteen_value(m_type, b));
    return out;
  }

  /// The stored bits (fp32: the floats' bits), for bit-exact comparisons.
  std::vector<std::uint32_t> bits() const {
    std::vector<std::uint32_t> out;
    if (m_type == core::DType::fp32) {
      for (const float v : m_fp32.to_host()) out.push_back(detail::float_bits(v));
    } else {
      for (const std::uint16_t b : m_bits.to_host()) out.push_back(b);
    }
    return out;
  }

 private:
  core::DType m_type;
  DeviceBuffer<float> m_fp32;
  DeviceBuffer<std::uint16_t> m_bits;
};

/// The stored bits of host floats rounded to `type`, to compare with DeviceActivations::bits().
inline std::vector<std::uint32_t> host_bits(core::DType type, std::span<const float> values) {
  std::vector<std::uint32_t> out;
  for (const float v : values)
    out.push_back(type == core::DType::fp32 ? detail::float_bits(v) : sixteen_bits(type, v));
  return out;
}

/// A CUDA stream owned by the test (the kernels queue work on the stream they are given).
class TestStream {
 public:
  TestStream() { SCALETUNE_CUDA_CHECK(cudaStreamCreate(&m_stream)); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  ~TestStream() { static_cast<void>(cudaStreamDestroy(m_stream)); }

  cudaStream_t get() const { return m_stream; }
  /// Waits for the queued work; throws CudaError when a kernel failed.
  void sync() const { SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }

 private:
  cudaStream_t m_stream = nullptr;
};

}  // namespace scaletune::kernels::cuda::testing
