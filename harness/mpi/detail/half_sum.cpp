#include "half_sum.hpp"

#include <stdexcept>
#include <string>

#include "harness/core/host_reduce.hpp"
#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi::detail {

namespace {
// MPI_User_function of the sum of Type; exceptions cannot cross MPI, and add_half_into
// throws only for types other than fp16 and bf16.
template <core::DType Type>
void sum_function(void* in, void* inout, int* len, MPI_Datatype*) noexcept {
  core::add_half_into(Type, in, inout, static_cast<std::size_t>(*len));
}

template <core::DType Type>
HalfSum create() {
  HalfSum made{};
  SCALETUNE_MPI_CHECK(MPI_Type_contiguous(2, MPI_BYTE, &made.type));
  SCALETUNE_MPI_CHECK(MPI_Type_commit(&made.type));
  SCALETUNE_MPI_CHECK(MPI_Op_create(&sum_function<Type>, /*commute=*/1, &made.sum));
  return made;
}
}  // namespace

const HalfSum& half_sum(core::DType type) {
  if (type == core::DType::fp16) {
    static const HalfSum fp16 = create<core::DType::fp16>();
    return fp16;
  }
  if (type == core::DType::bf16) {
    static const HalfSum bf16 = create<core::DType::bf16>();
    return bf16;
  }
  throw std::invalid_argument("half_sum: dtype " + std::string(core::dtype_key(type)) +
                              " is not a 2-byte float type (expected fp16 or bf16)");
}

}  // namespace scaletune::mpi::detail
