#pragma once
// Ranks bound to one core. Open MPI's progress engine polls without yielding while a rank waits
// in a collective unless told it oversubscribes (mpi_yield_when_idle); a rankfile or --cpu-set
// that binds two ranks to one core does not tell it, so a waiting rank takes the core from the
// rank that still computes. On the 3-rank host setup of jobs/hetero-3.rankfile this cost zero2
// and zero3's lockstep rounds a third of their throughput (README, "Heterogeneous ranks on one
// host").

#include <mpi.h>

#include <string>
#include <vector>

namespace scaletune::mpi {

/// Where a rank is bound: its host and the one CPU its affinity mask allows (-1: several).
struct RankBinding {
  std::string host;
  int core = -1;
};

/// This process's binding (processor_name and sched_getaffinity). Throws MpiError when the
/// processor name cannot be read.
RankBinding own_binding();

/// The groups of two or more ranks (index = rank) bound to the same core of the same host, each
/// in rank order, groups ordered by their first rank. Ranks with core -1 are in none.
std::vector<std::vector<int>> ranks_sharing_a_core(const std::vector<RankBinding>& bindings);

/// Whether Open MPI was told to yield while idle: OMPI_MCA_mpi_yield_when_idle is 1 or true.
bool yields_when_idle();

/// Collective over `comm`. On rank 0: a warning naming the ranks that share a core and the fix
/// (mpirun --mca mpi_yield_when_idle 1) when some do and Open MPI was not told to yield; "" on
/// other ranks and when none share one. Throws MpiError.
std::string shared_core_warning(MPI_Comm comm);

}  // namespace scaletune::mpi
