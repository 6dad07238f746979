#pragma once
// Host conversions between doubles and one element of a communication buffer of any DType, so
// the benchmark can fill inputs and check results whatever the element type.

#include <cstddef>

#include "harness/core/dtype.hpp"

namespace scaletune::collectives {

/// Writes `value` as one element of `type` at `dst` (dtype_bytes(type) bytes): rounded to
/// nearest even for fp32/fp16/bf16 (Eigen::half, Eigen::bfloat16), converted toward zero for
/// the integer types (callers pass integers there).
void store_element(core::DType type, double value, std::byte* dst);

/// The element of `type` at `src`, as a double (exact for every type but int64 above 2^53).
double load_element(core::DType type, const std::byte* src);

/// Unit roundoff of a floating type (2^-24 fp32, 2^-53 fp64, 2^-11 fp16, 2^-8 bf16: half the
/// distance from 1 to the next number); 0 for the integer types.
double unit_roundoff(core::DType type);

}  // namespace scaletune::collectives
