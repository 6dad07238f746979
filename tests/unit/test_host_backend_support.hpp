#pragma once
// Helpers the op-layer and host-backend tests share: op tensors over host vectors (the host
// backend's memory is host memory), seeded random values and conversions to double for
// test::all_near.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/ops/tensor.hpp"

namespace scaletune::kernels::test {

/// The op-layer element type of T (float, double, Eigen::half, Eigen::bfloat16, int32, int64).
template <class T>
constexpr ops::DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return ops::DType::fp32;
  if constexpr (std::is_same_v<T, double>) return ops::DType::fp64;
  if constexpr (std::is_same_v<T, Eigen::half>) return ops::DType::fp16;
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) return ops::DType::bf16;
  if constexpr (std::is_same_v<T, std::int32_t>) return ops::DType::int32;
  if constexpr (std::is_same_v<T, std::int64_t>) return ops::DType::int64;
}

/// An op tensor of `shape` over the elements of v (which must hold exactly that many).
template <class T>
ops::Tensor tensor_of(std::vector<T>& v, std::initializer_list<std::int64_t> shape) {
  const ops::Tensor t(v.data(), dtype_of<T>(), shape);
  if (static_cast<std::size_t>(t.numel()) != v.size())
    throw std::logic_error("tensor_of: " + t.describe() + " over a vector of another size");
  return t;
}

/// n floats uniform in [lo, hi) from mt19937(seed).
inline std::vector<float> uniform_floats(std::size_t n, unsigned seed, float lo = -1.0f,
                                         float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

/// The values of v as doubles.
template <class T>
std::vector<double> doubles(const std::vector<T>& v) {
  std::vector<double> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, double>)
      out[i] = v[i];
    else
      out[i] = static_cast<double>(static_cast<float>(v[i]));
  }
  return out;
}

/// v's floats converted to T one by one (Eigen's round to nearest even for 16-bit types).
template <class T>
std::vector<T> converted(const std::vector<float>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace scaletune::kernels::test
