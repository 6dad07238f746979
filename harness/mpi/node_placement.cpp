#include "node_placement.hpp"

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

NodePlacement node_placement(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  SCALETUNE_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  NodePlacement p;
  MPI_Comm_rank(node, &p.local_rank);
  MPI_Comm_size(node, &p.local_size);
  MPI_Comm_free(&node);
  return p;
}

}  // namespace scaletune::mpi
