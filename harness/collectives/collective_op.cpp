#include "collective_op.hpp"

namespace scaletune::collectives {

std::string_view collective_op_name(CollectiveOp op) {
  return job::collective_op_text(op);
}

bool is_reducing(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
}

int root_of(CollectiveOp op) {
  return op == CollectiveOp::broadcast ? 0 : -1;
}

}  // namespace scaletune::collectives
