#include "mpi_error.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>

namespace scaletune::mpi {

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int len = 0;
  MPI_Error_string(code, text.data(), &len);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  throw MpiError(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                 " on rank " + std::to_string(rank) + " (" + host.data() +
                 "): " + std::string(text.data(), static_cast<std::size_t>(len)));
}

}  // namespace scaletune::mpi
