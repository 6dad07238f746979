#pragma once
// Element counts and displacements as MPI takes them: int (MPI-3), checked.

#include <cstddef>
#include <span>
#include <vector>

namespace scaletune::mpi::detail {

/// `count` as an MPI count. Throws MpiError naming `op` and `what` (the argument) when it
/// exceeds INT_MAX.
int mpi_count(std::size_t count, const char* op, const char* what);

/// Per-rank counts and their displacements (prefix sums), elements, as MPI's v-collectives take
/// them; each vector has size() entries.
struct DisplacedCounts {
  std::vector<int> counts;
  std::vector<int> displacements;
};

/// DisplacedCounts of `counts` for a group of `ranks` ranks. Throws std::invalid_argument naming
/// `op` and `what` when counts.size() != ranks, and MpiError when a count or displacement
/// exceeds INT_MAX.
DisplacedCounts displaced_counts(std::span<const std::size_t> counts, int ranks, const char* op,
                                 const char* what);

}  // namespace scaletune::mpi::detail
