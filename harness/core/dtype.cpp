#include "dtype.hpp"

#include <array>

namespace scaletune::core {

namespace {
struct DTypeNames {
  DType type;
  std::size_t bytes;
  std::string_view name;
  std::string_view key;
};
constexpr std::array<DTypeNames, 6> kTypes{{
    {DType::fp32, 4, "float", "fp32"},
    {DType::fp64, 8, "double", "fp64"},
    {DType::fp16, 2, "half", "fp16"},
    {DType::bf16, 2, "bfloat16", "bf16"},
    {DType::int32, 4, "int32", "int32"},
    {DType::int64, 8, "int64", "int64"},
}};

const DTypeNames& names_of(DType type) {
  return kTypes.at(static_cast<std::size_t>(type));
}
}  // namespace

std::size_t dtype_bytes(DType type) {
  return names_of(type).bytes;
}

std::string_view dtype_name(DType type) {
  return names_of(type).name;
}

std::string_view dtype_key(DType type) {
  return names_of(type).key;
}

std::optional<DType> dtype_from_key(std::string_view key) {
  for (const auto& t : kTypes)
    if (t.key == key) return t.type;
  return std::nullopt;
}

}  // namespace scaletune::core
