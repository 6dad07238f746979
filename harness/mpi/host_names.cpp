#include "host_names.hpp"

#include <algorithm>
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
  return gathered_text(comm, processor_name(), MPI_MAX_PROCESSOR_NAME);
}

std::vector<std::string> gathered_text(MPI_Comm comm, const std::string& text, std::size_t width) {
  int size = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<char> mine(width, '\0');
  std::memcpy(mine.data(), text.data(), std::min(text.size(), width));
  std::vector<char> all(width * static_cast<std::size_t>(size));
  const int bytes = static_cast<int>(width);
  SCALETUNE_MPI_CHECK(
      MPI_Allgather(mine.data(), bytes, MPI_CHAR, all.data(), bytes, MPI_CHAR, comm));
  std::vector<std::string> texts;
  for (std::size_t at = 0; at < all.size(); at += width)
    texts.emplace_back(&all[at], strnlen(&all[at], width));
  return texts;
}

}  // namespace scaletune::mpi
