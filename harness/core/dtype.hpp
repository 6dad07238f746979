#pragma once
// Element types of communication buffers and their names.

#include <cstddef>
#include <string_view>

#include "harness/job/option_values.hpp"

namespace scaletune::core {

/// Element type of a communication buffer.
enum class DType {
  fp32,   ///< IEEE 754 binary32
  fp64,   ///< IEEE 754 binary64
  fp16,   ///< IEEE 754 binary16 ("half")
  bf16,   ///< bfloat16 (8 exponent bits, 7 mantissa bits)
  int32,  ///< two's complement 32-bit
  int64,  ///< two's complement 64-bit
};

/// Size of one element, bytes.
std::size_t dtype_bytes(DType type);

/// Name as nccl-tests prints it in its "type" column: "float", "double", "half", "bfloat16",
/// "int32", "int64". /collectives stores this name.
std::string_view dtype_name(DType type);

/// Name as job files spell it: "fp32", "fp64", "fp16", "bf16", "int32", "int64"
/// (job::data_type_text of the same type).
std::string_view dtype_key(DType type);

/// The buffer element type of a job file's element type (the enumerators correspond one to one).
DType dtype_of(job::DataType type);

}  // namespace scaletune::core
