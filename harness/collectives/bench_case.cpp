#include "bench_case.hpp"

namespace scaletune::collectives {

BenchCase make_case(CollectiveOp op, std::int64_t size_bytes, core::DType type,
                    core::ReduceOp redop, int ranks) {
  BenchCase c;
  c.op = op;
  c.type = type;
  c.redop = redop;
  c.ranks = ranks;
  c.layout = op_layout(op, size_bytes, core::dtype_bytes(type), ranks);
  c.counts.assign(static_cast<std::size_t>(ranks), c.layout.count);
  return c;
}

bool verifiable(const BenchCase& c, Placement placement) {
  const bool alltoall = c.op == CollectiveOp::alltoall || c.op == CollectiveOp::alltoallv;
  return placement == Placement::out_of_place || !alltoall;
}

}  // namespace scaletune::collectives
