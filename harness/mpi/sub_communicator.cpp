#include "sub_communicator.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/placement.hpp"

namespace scaletune::mpi {

namespace {

// Every rank's processor name, index = rank in `comm`. Collective over `comm`.
std::vector<std::string> processor_names(MPI_Comm comm) {
  int size = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  SCALETUNE_MPI_CHECK(MPI_Get_processor_name(mine.data(), &length));
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size));
  SCALETUNE_MPI_CHECK(MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                                    MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm));
  std::vector<std::string> names;
  for (std::size_t at = 0; at < all.size(); at += mine.size())
    names.emplace_back(&all[at], strnlen(&all[at], mine.size()));
  return names;
}

}  // namespace

SubCommunicator::SubCommunicator(MPI_Comm parent, int ranks)
    : m_parent_ranks(placement_order(processor_names(parent), ranks)) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(parent, &rank));
  const auto at = std::ranges::find(m_parent_ranks, rank);
  const bool in = at != m_parent_ranks.end();
  const int key = in ? static_cast<int>(at - m_parent_ranks.begin()) : 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_split(parent, in ? 0 : MPI_UNDEFINED, key, &m_comm));
}

SubCommunicator::~SubCommunicator() {
  if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);  // cleanup never throws
}

}  // namespace scaletune::mpi
