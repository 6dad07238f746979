#include "node_placement.hpp"

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

NodePlacement node_placement(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  SCALETUNE_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  NodePlacement p;
  const int rank_rc = MPI_Comm_rank(node, &p.local_rank);
  const int size_rc = MPI_Comm_size(node, &p.local_size);
  MPI_Comm_free(&node);  // before any throw, so the communicator never leaks
  SCALETUNE_MPI_CHECK(rank_rc);
  SCALETUNE_MPI_CHECK(size_rc);
  return p;
}

}  // namespace scaletune::mpi
