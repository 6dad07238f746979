#pragma once
// The first `ranks` ranks of a communicator as a communicator of their own: one launch covers
// every rank count <= world size (DESIGN.md "Command line").

#include <mpi.h>

namespace scaletune::mpi {

/// Owns the communicator made by MPI_Comm_split of `parent` into ranks [0, ranks) and the rest.
/// Collective over `parent`. Ranks outside get MPI_COMM_NULL (member() is false).
class SubCommunicator {
 public:
  SubCommunicator(MPI_Comm parent, int ranks);
  ~SubCommunicator();
  SubCommunicator(const SubCommunicator&) = delete;
  SubCommunicator& operator=(const SubCommunicator&) = delete;

  bool member() const { return m_comm != MPI_COMM_NULL; }
  MPI_Comm get() const { return m_comm; }

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
};

}  // namespace scaletune::mpi
