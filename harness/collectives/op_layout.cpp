#include "op_layout.hpp"

#include <stdexcept>

namespace scaletune::collectives {

namespace {
// Ops whose count is per rank (nccl-tests divides the size by the rank count).
bool count_is_per_rank(CollectiveOp op) {
  return op != CollectiveOp::all_reduce && op != CollectiveOp::broadcast;
}
}  // namespace

OpLayout op_layout(CollectiveOp op, std::int64_t size_bytes, std::size_t element_bytes, int ranks) {
  if (size_bytes < 0 || element_bytes == 0 || ranks < 1)
    throw std::invalid_argument("op_layout: needs size >= 0, element size > 0 and ranks >= 1");
  const auto n = static_cast<std::size_t>(ranks);
  const std::size_t elements = static_cast<std::size_t>(size_bytes) / element_bytes;
  OpLayout l;
  l.count = count_is_per_rank(op) ? elements / n : elements;
  const std::size_t total = count_is_per_rank(op) ? l.count * n : l.count;
  switch (op) {
    case CollectiveOp::reduce_scatter:
      l.send_count = total;
      l.recv_count = l.count;
      break;
    case CollectiveOp::all_gather:
    case CollectiveOp::all_gatherv:
      l.send_count = l.count;
      l.recv_count = total;
      break;
    default:
      l.send_count = total;
      l.recv_count = total;
  }
  l.bytes = static_cast<std::int64_t>(total * element_bytes);
  return l;
}

}  // namespace scaletune::collectives
