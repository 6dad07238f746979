#include "element_values.hpp"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace scaletune::collectives {

namespace {

template <class T>
void store_as(double value, std::byte* dst) {
  const T element = static_cast<T>(static_cast<float>(value));
  std::memcpy(dst, &element, sizeof(T));
}

template <class T>
double load_as(const std::byte* src) {
  T element;
  std::memcpy(&element, src, sizeof(T));
  return static_cast<double>(static_cast<float>(element));
}

template <class T>
void store_exact(T element, std::byte* dst) {
  std::memcpy(dst, &element, sizeof(T));
}

template <class T>
double load_exact(const std::byte* src) {
  T element;
  std::memcpy(&element, src, sizeof(T));
  return static_cast<double>(element);
}

}  // namespace

void store_element(core::DType type, double value, std::byte* dst) {
  switch (type) {
    case core::DType::fp32:
      return store_exact(static_cast<float>(value), dst);
    case core::DType::fp64:
      return store_exact(value, dst);
    case core::DType::fp16:
      return store_as<Eigen::half>(value, dst);
    case core::DType::bf16:
      return store_as<Eigen::bfloat16>(value, dst);
    case core::DType::int32:
      return store_exact(static_cast<std::int32_t>(value), dst);
    case core::DType::int64:
      return store_exact(static_cast<std::int64_t>(value), dst);
  }
}

double load_element(core::DType type, const std::byte* src) {
  switch (type) {
    case core::DType::fp32:
      return load_exact<float>(src);
    case core::DType::fp64:
      return load_exact<double>(src);
    case core::DType::fp16:
      return load_as<Eigen::half>(src);
    case core::DType::bf16:
      return load_as<Eigen::bfloat16>(src);
    case core::DType::int32:
      return load_exact<std::int32_t>(src);
    case core::DType::int64:
      return load_exact<std::int64_t>(src);
  }
  return 0.0;
}

double unit_roundoff(core::DType type) {
  switch (type) {
    case core::DType::fp32:
      return std::ldexp(1.0, -24);
    case core::DType::fp64:
      return std::ldexp(1.0, -53);
    case core::DType::fp16:
      return std::ldexp(1.0, -11);
    case core::DType::bf16:
      return std::ldexp(1.0, -8);
    default:
      return 0.0;
  }
}

}  // namespace scaletune::collectives
