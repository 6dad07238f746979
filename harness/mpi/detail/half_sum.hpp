#pragma once
// MPI datatypes and sums for the 2-byte float types, which MPI does not define.

#include <mpi.h>

#include "harness/core/dtype.hpp"

namespace scaletune::mpi::detail {

/// An MPI datatype for one element of a 2-byte float type and the commutative MPI_Op that sums
/// it (core::add_half_into: added in float, rounded to nearest even once per addition).
struct HalfSum {
  MPI_Datatype type;  ///< 2 contiguous MPI_BYTEs, committed
  MPI_Op sum;         ///< valid with `type` only
};

/// The datatype and sum of `type` (fp16 or bf16; std::invalid_argument otherwise). Created on
/// the first call after MPI_Init, once per process and thread-safe (a function-local static);
/// never freed: MPI_Finalize releases them, and freeing earlier could not be ordered after
/// every communicator's last use. Throws MpiError when MPI cannot create them.
const HalfSum& half_sum(core::DType type);

}  // namespace scaletune::mpi::detail
