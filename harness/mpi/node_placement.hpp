#pragma once
// Where a rank sits on its node.

#include <mpi.h>

namespace scaletune::mpi {

/// This rank's index among the ranks of `comm` on the same node, and how many there are.
struct NodePlacement {
  int local_rank = 0;
  int local_size = 1;
};

/// Collective over `comm` (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED).
NodePlacement node_placement(MPI_Comm comm);

}  // namespace scaletune::mpi
