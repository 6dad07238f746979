#pragma once
// The collectives the benchmark times, named as nccl-tests names its binaries.

#include <optional>
#include <string_view>

namespace scaletune::collectives {

/// One collective of the communicator interface (harness/core/communicator.hpp).
enum class CollectiveOp {
  all_reduce,
  reduce_scatter,
  all_gather,
  all_gatherv,  ///< all_gather through the per-rank-count call, even counts
  alltoall,
  alltoallv,  ///< alltoall through the per-peer-count call, even counts
  broadcast,  ///< from rank 0
};

/// "all_reduce", "reduce_scatter", "all_gather", "all_gatherv", "alltoall", "alltoallv",
/// "broadcast" (job files, /collectives and the printed table use these).
std::string_view collective_op_name(CollectiveOp op);

/// The op named `name`; nullopt for any other name.
std::optional<CollectiveOp> collective_op_from_name(std::string_view name);

/// Whether the op reduces (all_reduce, reduce_scatter): it has a redop.
bool is_reducing(CollectiveOp op);

/// The op's root as nccl-tests prints it: 0 for broadcast, -1 for ops without one.
int root_of(CollectiveOp op);

}  // namespace scaletune::collectives
