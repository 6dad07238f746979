#include "host_reduce.hpp"

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace scaletune::core {

namespace {
// Elements are read and written through memcpy: the buffers hold bytes from the network.
template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void store(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

template <typename Half>
void add_into(const void* in, void* inout, std::size_t count) {
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  for (std::size_t i = 0; i < count; ++i, a += sizeof(Half), b += sizeof(Half))
    store(b, Half(static_cast<float>(load<Half>(a)) + static_cast<float>(load<Half>(b))));
}

// Stored: the element type; Compute: the type the quotient is computed in.
template <typename Stored, typename Compute>
void divide(void* data, std::size_t count, int ranks) {
  auto* p = static_cast<std::byte*>(data);
  const auto divisor = static_cast<Compute>(ranks);
  for (std::size_t i = 0; i < count; ++i, p += sizeof(Stored))
    store(p, Stored(static_cast<Compute>(load<Stored>(p)) / divisor));
}
}  // namespace

void add_half_into(DType type, const void* in, void* inout, std::size_t count) {
  switch (type) {
    case DType::fp16:
      return add_into<Eigen::half>(in, inout, count);
    case DType::bf16:
      return add_into<Eigen::bfloat16>(in, inout, count);
    default:
      throw std::invalid_argument("add_half_into: dtype " + std::string(dtype_key(type)) +
                                  " is not a 2-byte float type (expected fp16 or bf16)");
  }
}

void divide_by_ranks(DType type, void* data, std::size_t count, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("divide_by_ranks: ranks " + std::to_string(ranks) +
                                " (expected at least 1)");
  switch (type) {
    case DType::fp32:
      return divide<float, float>(data, count, ranks);
    case DType::fp64:
      return divide<double, double>(data, count, ranks);
    case DType::fp16:
      return divide<Eigen::half, float>(data, count, ranks);
    case DType::bf16:
      return divide<Eigen::bfloat16, float>(data, count, ranks);
    case DType::int32:
      return divide<std::int32_t, std::int32_t>(data, count, ranks);
    case DType::int64:
      return divide<std::int64_t, std::int64_t>(data, count, ranks);
  }
  throw std::invalid_argument("divide_by_ranks: unknown dtype");
}

}  // namespace scaletune::core
