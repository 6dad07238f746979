#pragma once
// Helpers of the host tests of the CUDA kernels' per-element bodies (kernels/cuda/detail/
// *_math.hpp): the three element types, storing host data in them and reading it back, and
// the stored bits for bit-exact comparisons.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::cuda::test {

using detail::Bf16;
using detail::Fp16;

/// The activation element types every kernel takes, for typed tests.
using ElementTypes = ::testing::Types<float, Fp16, Bf16>;

/// Names the element type in typed-test output.
struct ElementTypeNames {
  template <class T>
  static std::string GetName(int /*index*/) {
    if constexpr (std::is_same_v<T, float>) return "fp32";
    if constexpr (std::is_same_v<T, Fp16>) return "fp16";
    return "bf16";
  }
};

/// A host [rows, cols] tensor holding `values` (row-major, rows * cols of them).
inline Tensor2 host_matrix(std::span<const float> values, std::size_t rows, std::size_t cols) {
  const Tensor2 t("t", rows, cols);
  for (std::size_t i = 0; i < values.size(); ++i) t.data()[i] = values[i];
  return t;
}

/// The elements of a contiguous host view, row-major.
template <class ViewType>
std::vector<float> host_values(const ViewType& v) {
  return std::vector<float>(v.data(), v.data() + v.size());
}

/// `n` values uniform in [lo, hi) from mt19937(seed).
inline std::vector<float> uniform_values(std::size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

/// `values` stored as T (rounded to nearest even).
template <class T>
std::vector<T> stored(std::span<const float> values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (const float v : values) out.push_back(detail::from_float<T>(v));
  return out;
}

/// `values` loaded back to float.
template <class T>
std::vector<float> loaded(std::span<const T> values) {
  std::vector<float> out;
  out.reserve(values.size());
  for (const T v : values) out.push_back(detail::to_float(v));
  return out;
}

/// `values` rounded to T and back: what a kernel on T-typed inputs reads.
template <class T>
std::vector<float> rounded(std::span<const float> values) {
  const std::vector<T> s = stored<T>(values);
  return loaded<T>(s);
}

/// The stored bits of an element (the float's 32, the 16 of Fp16 and Bf16).
inline std::uint32_t bits_of(float v) {
  return detail::float_bits(v);
}
inline std::uint32_t bits_of(Fp16 v) {
  return v.bits;
}
inline std::uint32_t bits_of(Bf16 v) {
  return v.bits;
}

/// Success when got and want hold the same bits everywhere; otherwise names the first
/// difference and how many there are.
template <class T>
::testing::AssertionResult same_bits(std::span<const T> got, std::span<const T> want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (bits_of(got[i]) != bits_of(want[i]) && differ++ == 0) first = i;
  if (differ == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << differ << " of " << got.size() << " elements differ; first [" << first << "]: got "
         << detail::to_float(got[first]) << " (bits 0x" << std::hex << bits_of(got[first])
         << "), want " << detail::to_float(want[first]) << " (bits 0x" << bits_of(want[first])
         << ")";
}

}  // namespace scaletune::kernels::cuda::test
