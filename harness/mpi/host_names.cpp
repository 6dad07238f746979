#include "host_names.hpp"

#include <cstring>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

std::string processor_name() {
  std::vector<char> name(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  SCALETUNE_MPI_CHECK(MPI_Get_processor_name(name.data(), &length));
  return std::string(name.data(), static_cast<std::size_t>(length));
}

std::vector<std::string> host_names(MPI_Comm comm) {
  int size = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  const std::string name = processor_name();
  std::memcpy(mine.data(), name.data(), name.size());
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size));
  SCALETUNE_MPI_CHECK(MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                                    MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm));
  std::vector<std::string> names;
  for (std::size_t at = 0; at < all.size(); at += mine.size())
    names.emplace_back(&all[at], strnlen(&all[at], mine.size()));
  return names;
}

}  // namespace scaletune::mpi
