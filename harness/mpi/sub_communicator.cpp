#include "sub_communicator.hpp"

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

SubCommunicator::SubCommunicator(MPI_Comm parent, int ranks) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(parent, &rank));
  const int color = rank < ranks ? 0 : MPI_UNDEFINED;
  SCALETUNE_MPI_CHECK(MPI_Comm_split(parent, color, rank, &m_comm));
}

SubCommunicator::~SubCommunicator() {
  if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);  // cleanup never throws
}

}  // namespace scaletune::mpi
