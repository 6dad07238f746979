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

DType dtype_of(job::DataType type) {
  switch (type) {
    case job::DataType::fp32:
      return DType::fp32;
    case job::DataType::fp64:
      return DType::fp64;
    case job::DataType::fp16:
      return DType::fp16;
    case job::DataType::bf16:
      return DType::bf16;
    case job::DataType::int32:
      return DType::int32;
    case job::DataType::int64:
      return DType::int64;
  }
  return DType::fp32;  // not reached: every enumerator is handled above
}

}  // namespace scaletune::core
