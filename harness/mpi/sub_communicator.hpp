#pragma once
// The ranks a configuration of `ranks` ranks runs on, as a communicator of their own: one launch
// covers every rank count <= world size (DESIGN.md "Command line"). The ranks are placed on
// whole hosts first (placement.hpp); on one host they are the first `ranks` ranks.

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

namespace scaletune::mpi {

/// Owns the communicator made by MPI_Comm_split of `parent` into the ranks placement_order
/// chooses from the ranks' hosts and the rest. Rank i of the sub-communicator is
/// parent_ranks()[i]; rank 0 of `parent` is always a member and its rank 0.
/// Collective over `parent`. Ranks outside get MPI_COMM_NULL (member() is false).
class SubCommunicator {
 public:
  /// `hosts`: every parent rank's host, index = rank in `parent` (host_names(parent), the same
  /// on every rank; a sweep gathers it once). Throws MpiError when an MPI call fails,
  /// std::invalid_argument when `ranks` is outside [1, size of parent] or `hosts` does not hold
  /// one name per parent rank.
  SubCommunicator(MPI_Comm parent, int ranks, std::span<const std::string> hosts);
  ~SubCommunicator();
  SubCommunicator(const SubCommunicator&) = delete;
  SubCommunicator& operator=(const SubCommunicator&) = delete;

  bool member() const { return m_comm != MPI_COMM_NULL; }
  MPI_Comm get() const { return m_comm; }
  /// The members' ranks in `parent`, index = rank in the sub-communicator (on every rank).
  const std::vector<int>& parent_ranks() const { return m_parent_ranks; }

 private:
  std::vector<int> m_parent_ranks;
  MPI_Comm m_comm = MPI_COMM_NULL;
};

}  // namespace scaletune::mpi
