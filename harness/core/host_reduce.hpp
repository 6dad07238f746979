#pragma once
// Element-wise arithmetic of reductions on host memory that a host backend cannot leave to its
// library: sums of the 2-byte float types (MPI has none) and the division that finishes an
// average.
//
// fp16 and bf16 are computed in float and rounded once to nearest, ties to even. float carries
// 24 significant bits, at least 2p + 2 for either type (p = 11 for fp16, 8 for bf16), so the
// result equals the correctly rounded sum or quotient despite the two roundings (S. A.
// Figueroa, "When is double rounding innocuous?", ACM SIGNUM Newsletter 30(3), 1995).

#include <cstddef>

#include "harness/core/dtype.hpp"

namespace scaletune::core {

/// inout[i] = in[i] + inout[i] for i in [0, count), host memory, [count] elements of `type`,
/// which must be fp16 or bf16; IEEE 754 addition with overflow to infinity.
/// Throws std::invalid_argument for any other type.
void add_half_into(DType type, const void* in, void* inout, std::size_t count);

/// Finishes ReduceOp::avg from the sum over `ranks` ranks: data[i] = data[i] / ranks, host
/// memory, [count] elements of `type`. fp32 and fp64 divide in their own type, fp16 and bf16
/// in float rounded once, integers truncate toward zero. Throws std::invalid_argument when
/// ranks < 1.
void divide_by_ranks(DType type, void* data, std::size_t count, int ranks);

}  // namespace scaletune::core
