#pragma once
// The MPI datatype and sum of each core::DType.

#include <mpi.h>

#include "harness/core/dtype.hpp"

namespace scaletune::mpi::detail {

/// The MPI datatype of one element of `type`: MPI_FLOAT, MPI_DOUBLE, MPI_INT32_T, MPI_INT64_T,
/// or for fp16 and bf16 the 2-byte type of half_sum(). Throws std::invalid_argument for a value
/// outside the enum.
MPI_Datatype mpi_datatype(core::DType type);

/// The MPI_Op summing elements of mpi_datatype(type): MPI_SUM, or half_sum()'s user op.
MPI_Op mpi_sum(core::DType type);

}  // namespace scaletune::mpi::detail
