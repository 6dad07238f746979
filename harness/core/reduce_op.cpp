#include "reduce_op.hpp"

namespace scaletune::core {

std::string_view reduce_op_name(ReduceOp op) {
  return op == ReduceOp::avg ? "avg" : "sum";
}

std::optional<ReduceOp> reduce_op_from_name(std::string_view name) {
  if (name == "sum") return ReduceOp::sum;
  if (name == "avg") return ReduceOp::avg;
  return std::nullopt;
}

}  // namespace scaletune::core
