#pragma once
// How big each buffer of an op is for a size in bytes, the way nccl-tests sizes its tests
// (nccl-tests src/*.cu, *GetCollByteCount): the size is the op's whole buffer, the printed
// count the elements of the op's count argument.

#include <cstddef>
#include <cstdint>

#include "harness/collectives/collective_op.hpp"

namespace scaletune::collectives {

/// Buffer sizes of one op on `ranks` ranks, elements unless stated.
struct OpLayout {
  /// nccl-tests' "count" column: all_reduce, broadcast: elements reduced or sent;
  /// reduce_scatter: elements each rank receives; all_gather(v): elements each rank sends;
  /// alltoall(v): elements each rank sends to each peer.
  std::size_t count = 0;
  std::size_t send_count = 0;  ///< elements of each rank's send buffer
  std::size_t recv_count = 0;  ///< elements of each rank's receive buffer
  std::int64_t bytes = 0;      ///< nccl-tests' "size": the size rounded down to whole counts
};

/// The layout of `op` for `size_bytes` with elements of `element_bytes` on `ranks` ranks:
/// count = size / element_bytes, divided by `ranks` (rounded down) for reduce_scatter,
/// all_gather(v) and alltoall(v); bytes = the elements the op moves x element_bytes. Sizes below
/// one element (per rank) give count 0. Throws std::invalid_argument when size_bytes < 0,
/// element_bytes == 0 or ranks < 1.
OpLayout op_layout(CollectiveOp op, std::int64_t size_bytes, std::size_t element_bytes, int ranks);

}  // namespace scaletune::collectives
