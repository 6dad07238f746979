#pragma once
// Reading and cross-checking the [sweep] table of a job file.

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Reads [sweep] for a job of the validated `workload` (its kind, and for kind dlrm its plans). A
/// kind that sweeps ranks only (!sweeps_batch) takes ranks alone (required list of integers in [1,
/// 2^20]); global_batch, batch_split, precision, sharding and state_sharding are errors for it and
/// the other lists of the result stay empty. Otherwise it reads [sweep]: ranks (required list of
/// integers in [1, 2^20]), global_batch (required list of integers in [1, 2^30]), batch_split
/// (default ["even"]; "even", a list of finite weights > 0 with a finite sum, checked at that
/// list, and for a kind that profiles its ranks (transformer) "proportional" and "auto") and
/// precision (default ["fp32"]; kTrainingPrecisions values, and with `devices` host only those
/// precision_supported_on_host allows, the message naming precision, the value and what to use
/// instead). Every value must be a non-empty list without repeats. Then
/// checks that every weight list's length is a ranks value, that every ranks value has a
/// batch_split that applies, and that every global batch splits over every ranks value it meets
/// (even_split / weighted_split; a profiled split needs global_batch >= ranks).
/// state_sharding is optional (default ["replicated"]) for a kind that sweeps it (transformer)
/// and an error for the others: a non-empty list of distinct kStateShardings values (did-you-mean
/// on a typo).
/// sharding is required for a kind that sweeps it (dlrm) and an error for the others: a
/// non-empty list of distinct built-in schemes (kShardingSchemes) and [workload.plans] names
/// (did-you-mean on a typo); each explicit plan must apply (sharding_applies) to some ranks value,
/// and every ranks value must have a sharding that applies. Throws JobError at the offending node
/// (a missing sharding at line 0).
SweepSpec read_sweep(const TableReader& sweep, const WorkloadSpec& workload,
                     DeviceKindRequest devices);

}  // namespace scaletune::job::detail
