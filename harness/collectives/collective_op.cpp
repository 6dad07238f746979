#include "collective_op.hpp"

#include "harness/job/job.hpp"

namespace scaletune::collectives {

// job::collective_op_names() lists the names in the order of the enumerators.
std::string_view collective_op_name(CollectiveOp op) {
  return job::collective_op_names().at(static_cast<std::size_t>(op));
}

std::optional<CollectiveOp> collective_op_from_name(std::string_view name) {
  const auto& names = job::collective_op_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<CollectiveOp>(i);
  return std::nullopt;
}

bool is_reducing(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
}

int root_of(CollectiveOp op) {
  return op == CollectiveOp::broadcast ? 0 : -1;
}

}  // namespace scaletune::collectives
