#include "mpi_error.hpp"

#include <mpi.h>

#include <array>

#include "harness/core/error_context.hpp"

namespace scaletune::mpi {

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int len = 0;
  MPI_Error_string(code, text.data(), &len);
  throw MpiError(core::failed_call_message(
      call, file, line, std::string(text.data(), static_cast<std::size_t>(len))));
}

}  // namespace scaletune::mpi
