#pragma once
// This process's rank in MPI_COMM_WORLD and the world's size, for the MPI tests.

#include <mpi.h>

namespace scaletune::test {

/// MPI_Comm_rank of MPI_COMM_WORLD.
inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// MPI_Comm_size of MPI_COMM_WORLD.
inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace scaletune::test
