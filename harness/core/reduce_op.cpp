#include "reduce_op.hpp"

namespace scaletune::core {

std::string_view reduce_op_name(ReduceOp op) {
  return op == ReduceOp::avg ? "avg" : "sum";
}

ReduceOp reduce_op_of(job::ReductionOp op) {
  return op == job::ReductionOp::avg ? ReduceOp::avg : ReduceOp::sum;
}

}  // namespace scaletune::core
