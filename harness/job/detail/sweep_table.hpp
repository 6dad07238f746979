#pragma once
// Reading and cross-checking the [sweep] table of a job file.

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;
struct WorkloadKind;

/// Reads [sweep] for a job of workload `kind`. A kind that sweeps ranks only (!sweeps_batch)
/// takes ranks alone (required list of integers in [1, 2^20]); global_batch, batch_split and
/// precision are errors for it and the other lists of the result stay empty. Otherwise it reads
/// [sweep]: ranks (required list of integers in [1, 2^20]), global_batch (required list of
/// integers in [1, 2^30]), batch_split (default ["even"]; "even" or a list of finite weights > 0
/// with a finite sum, checked at that list) and precision (default ["fp32"]). Every
/// value must be a non-empty list without repeats. Then checks that every weight list's length
/// is a ranks value, that every ranks value has a batch_split that applies, and that every
/// global batch splits over every ranks value it meets (even_split / weighted_split).
/// Throws JobError at the offending node.
SweepSpec read_sweep(const TableReader& sweep, const WorkloadKind& kind);

}  // namespace scaletune::job::detail
