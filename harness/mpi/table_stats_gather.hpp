#pragma once
// Per-table embedding statistics of every rank, collected on rank 0 of a configuration.

#include <mpi.h>

#include <vector>

#include "harness/core/workload.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// Collective over `comm`: gathers every rank's `stats` (one entry per table, the same tables
/// in the same order on every rank) into r.embedding on rank 0 of `comm` ([tables, ranks]
/// row-major, as results::EmbeddingStats documents). Does nothing when stats is empty (a
/// workload without tables).
void gather_table_stats(const std::vector<core::TableRankStats>& stats, MPI_Comm comm,
                        results::ConfigResult& r);

}  // namespace scaletune::mpi
