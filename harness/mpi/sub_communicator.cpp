#include "sub_communicator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/placement.hpp"

namespace scaletune::mpi {

SubCommunicator::SubCommunicator(MPI_Comm parent, int ranks, std::span<const std::string> hosts) {
  int rank = 0, size = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(parent, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(parent, &size));
  if (hosts.size() != static_cast<std::size_t>(size))
    throw std::invalid_argument("sub-communicator: " + std::to_string(hosts.size()) +
                                " host names for " + std::to_string(size) + " ranks");
  m_parent_ranks = placement_order(hosts, ranks);
  const auto at = std::ranges::find(m_parent_ranks, rank);
  const bool in = at != m_parent_ranks.end();
  const int key = in ? static_cast<int>(at - m_parent_ranks.begin()) : 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_split(parent, in ? 0 : MPI_UNDEFINED, key, &m_comm));
}

SubCommunicator::~SubCommunicator() {
  if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);  // cleanup never throws
}

}  // namespace scaletune::mpi
