#pragma once
// The collectives the benchmark times, named as nccl-tests names its binaries.

#include <string_view>

#include "harness/job/option_values.hpp"

namespace scaletune::collectives {

/// One collective of the communicator interface (harness/core/communicator.hpp): the job
/// file's [workload] ops values.
using CollectiveOp = job::CollectiveOp;

/// "all_reduce", "reduce_scatter", "all_gather", "all_gatherv", "alltoall", "alltoallv",
/// "broadcast" (job files, /collectives and the printed table use these: job::collective_op_text).
std::string_view collective_op_name(CollectiveOp op);

/// Whether the op reduces (all_reduce, reduce_scatter): it has a redop.
bool is_reducing(CollectiveOp op);

/// The op's root as nccl-tests prints it: 0 for broadcast, -1 for ops without one.
int root_of(CollectiveOp op);

}  // namespace scaletune::collectives
