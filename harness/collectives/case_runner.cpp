#include "case_runner.hpp"

#include <algorithm>
#include <cstddef>

#include "harness/collectives/verification.hpp"

namespace scaletune::collectives {

namespace {

// The send and receive pointers of the case in `buffers`.
struct OpBuffers {
  const void* send = nullptr;
  void* recv = nullptr;
};

OpBuffers pointers(const BenchCase& c, Placement placement, BenchBuffers& buffers, int rank) {
  auto* recv = static_cast<std::byte*>(buffers.recv->data());
  if (placement == Placement::out_of_place) return {buffers.send->data(), recv};
  const std::size_t block = c.layout.count * core::dtype_bytes(c.type);
  const std::size_t own = static_cast<std::size_t>(rank) * block;
  switch (c.op) {
    case CollectiveOp::reduce_scatter:
      return {recv, recv + own};
    case CollectiveOp::all_gather:
    case CollectiveOp::all_gatherv:
      return {recv + own, recv};
    default:
      return {recv, recv};
  }
}

void issue(core::Communicator& comm, const BenchCase& c, OpBuffers b) {
  const std::size_t n = c.layout.count;
  switch (c.op) {
    case CollectiveOp::all_reduce:
      return comm.all_reduce(b.send, b.recv, n, c.type, c.redop);
    case CollectiveOp::reduce_scatter:
      return comm.reduce_scatter(b.send, b.recv, n, c.type, c.redop);
    case CollectiveOp::all_gather:
      return comm.all_gather(b.send, b.recv, n, c.type);
    case CollectiveOp::all_gatherv:
      return comm.all_gatherv(b.send, b.recv, c.counts, c.type);
    case CollectiveOp::alltoall:
      return comm.all_to_all(b.send, b.recv, n, c.type);
    case CollectiveOp::alltoallv:
      return comm.all_to_allv(b.send, c.counts, b.recv, c.counts, c.type);
    case CollectiveOp::broadcast:
      return comm.broadcast(b.send, b.recv, n, c.type, root_of(c.op));
  }
}

std::int64_t checked_run(core::Communicator& comm, const BenchCase& c, Placement placement,
                         BenchBuffers& buffers, OpBuffers ptrs) {
  const int rank = comm.rank();
  const std::vector<std::byte> input = input_image(c, placement, rank);
  (placement == Placement::in_place ? buffers.recv : buffers.send)->upload(input);
  issue(comm, c, ptrs);
  comm.synchronize();
  if (!verifiable(c, placement)) return -1;
  const ResultRegion region = result_region(c, placement, rank);
  const std::size_t width = core::dtype_bytes(c.type);
  std::vector<std::byte> image((region.offset + region.count) * width);
  buffers.recv->download(image);
  return count_wrong(c, rank, std::span<const std::byte>(image).subspan(region.offset * width));
}

}  // namespace

BufferBytes buffer_bytes(const std::vector<BenchCase>& cases) {
  BufferBytes b;
  for (const BenchCase& c : cases) {
    const std::size_t width = core::dtype_bytes(c.type);
    b.send = std::max(b.send, c.layout.send_count * width);
    b.recv = std::max({b.recv, c.layout.recv_count * width, c.layout.send_count * width});
  }
  return b;
}

BenchBuffers allocate_buffers(core::Communicator& comm, const std::vector<BenchCase>& cases) {
  const BufferBytes b = buffer_bytes(cases);
  return {comm.allocate(b.send), comm.allocate(b.recv)};
}

CaseMeasurement measure_case(core::Communicator& comm, const BenchCase& c, Placement placement,
                             BenchBuffers& buffers, int warmup, int iterations) {
  const OpBuffers ptrs = pointers(c, placement, buffers, comm.rank());
  CaseMeasurement m;
  m.wrong = checked_run(comm, c, placement, buffers, ptrs);
  for (int i = 0; i < warmup; ++i) issue(comm, c, ptrs);
  comm.barrier();
  const auto timer = comm.timer();
  timer->mark();
  for (int i = 0; i < iterations; ++i) issue(comm, c, ptrs);
  timer->mark();
  m.time_per_op_s = timer->intervals().at(0) / iterations;
  return m;
}

}  // namespace scaletune::collectives
