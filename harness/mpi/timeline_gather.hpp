#pragma once
// Every rank's timeline spans collected on rank 0 of a configuration (run.timeline).

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "harness/job/option_values.hpp"
#include "harness/results/result_types.hpp"
#include "harness/trace/timeline_span.hpp"

namespace scaletune::mpi {

/// The timed iteration run.timeline = "one" keeps: the median of `step_time` (the lower of the
/// middle two for an even count; the first such iteration on ties). Throws std::invalid_argument
/// for an empty step_time.
std::size_t median_iteration(const std::vector<double>& step_time);

/// Collective over `comm`: with TimelineMode::one, the spans of median_iteration(r.step_time)
/// (r.step_time is rank 0's; the iteration is broadcast), with all every span, of every rank,
/// into r.timeline on rank 0, by rank, each span's rank set to its rank in `comm`. Nothing with
/// TimelineMode::none.
void gather_timeline(const std::vector<trace::TimelineSpan>& spans, job::TimelineMode mode,
                     MPI_Comm comm, results::ConfigResult& r);

}  // namespace scaletune::mpi
