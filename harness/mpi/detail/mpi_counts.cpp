#include "mpi_counts.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi::detail {

int mpi_count(std::size_t count, const char* op, const char* what) {
  if (count > static_cast<std::size_t>(INT_MAX))
    throw MpiError(std::string(op) + ": " + what + " " + std::to_string(count) +
                   " elements exceeds INT_MAX (" + std::to_string(INT_MAX) +
                   "), the largest count or displacement an MPI call takes; send it in pieces");
  return static_cast<int>(count);
}

DisplacedCounts displaced_counts(std::span<const std::size_t> counts, int ranks, const char* op,
                                 const char* what) {
  if (counts.size() != static_cast<std::size_t>(ranks))
    throw std::invalid_argument(std::string(op) + ": " + what + " has " +
                                std::to_string(counts.size()) +
                                " entries (expected one per rank, " + std::to_string(ranks) + ")");
  DisplacedCounts out;
  std::size_t offset = 0;
  for (const std::size_t count : counts) {
    out.counts.push_back(mpi_count(count, op, what));
    out.displacements.push_back(mpi_count(offset, op, "displacement"));
    offset += count;
  }
  return out;
}

}  // namespace scaletune::mpi::detail
