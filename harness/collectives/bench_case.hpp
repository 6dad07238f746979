#pragma once
// One point of a collective benchmark: an op at one size, element type and rank count.

#include <cstdint>
#include <vector>

#include "harness/collectives/collective_op.hpp"
#include "harness/collectives/op_layout.hpp"
#include "harness/core/dtype.hpp"
#include "harness/core/reduce_op.hpp"

namespace scaletune::collectives {

/// Out of place (separate send and receive buffers) or in place (NCCL's conventions,
/// harness/core/communicator.hpp).
enum class Placement { out_of_place, in_place };

/// An op at one size, with everything the timed loop needs precomputed (it allocates nothing).
struct BenchCase {
  CollectiveOp op = CollectiveOp::all_reduce;
  core::DType type = core::DType::fp32;
  core::ReduceOp redop = core::ReduceOp::sum;  ///< used by reducing ops only
  int ranks = 1;
  OpLayout layout;
  /// [ranks] entries of layout.count: the per-rank counts of all_gatherv and alltoallv.
  std::vector<std::size_t> counts;
};

/// The case of `op` at `size_bytes` (nccl-tests sizing, op_layout). Throws as op_layout.
BenchCase make_case(CollectiveOp op, std::int64_t size_bytes, core::DType type,
                    core::ReduceOp redop, int ranks);

/// Whether a result of `placement` can be verified: every op out of place; in place all but
/// alltoall(v), whose in-place result NCCL leaves unspecified (nccl-tests prints N/A too).
bool verifiable(const BenchCase& c, Placement placement);

}  // namespace scaletune::collectives
