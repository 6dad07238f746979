#include "mpi_dtype.hpp"

#include <stdexcept>

#include "harness/mpi/detail/half_sum.hpp"

namespace scaletune::mpi::detail {

MPI_Datatype mpi_datatype(core::DType type) {
  switch (type) {
    case core::DType::fp32:
      return MPI_FLOAT;
    case core::DType::fp64:
      return MPI_DOUBLE;
    case core::DType::int32:
      return MPI_INT32_T;
    case core::DType::int64:
      return MPI_INT64_T;
    case core::DType::fp16:
    case core::DType::bf16:
      return half_sum(type).type;
  }
  throw std::invalid_argument("mpi_datatype: unknown dtype");
}

MPI_Op mpi_sum(core::DType type) {
  if (type == core::DType::fp16 || type == core::DType::bf16) return half_sum(type).sum;
  return MPI_SUM;
}

}  // namespace scaletune::mpi::detail
