#include "mpi_communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "harness/core/host_buffer.hpp"
#include "harness/core/host_reduce.hpp"
#include "harness/core/host_timer.hpp"
#include "harness/mpi/detail/mpi_counts.hpp"
#include "harness/mpi/detail/mpi_dtype.hpp"
#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

namespace {
using core::DType;
using detail::mpi_count;
using detail::mpi_datatype;

// Element `index` of a buffer of `type`.
std::byte* at(void* base, std::size_t index, DType type) {
  return static_cast<std::byte*>(base) + index * core::dtype_bytes(type);
}
const std::byte* at(const void* base, std::size_t index, DType type) {
  return static_cast<const std::byte*>(base) + index * core::dtype_bytes(type);
}

// Calls fn(offset, piece) for consecutive pieces of [count] elements, each at most INT_MAX
// elements (MPI counts are int).
template <class Fn>
void for_each_piece(std::size_t count, Fn fn) {
  constexpr std::size_t kMaxPiece = INT_MAX;
  for (std::size_t offset = 0; offset < count; offset += kMaxPiece)
    fn(offset, static_cast<int>(std::min(kMaxPiece, count - offset)));
}

// Turns the sum in `data` into the reduction `op` asks for.
void finish(core::ReduceOp op, DType type, void* data, std::size_t count, int ranks) {
  if (op == core::ReduceOp::avg) core::divide_by_ranks(type, data, count, ranks);
}
}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : m_comm(comm) {
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &m_rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &m_size));
  m_started.reserve(kReservedStarts);
  m_averages.reserve(kReservedStarts);
}

std::unique_ptr<core::CommBuffer> MpiCommunicator::allocate(std::size_t bytes) {
  return std::make_unique<core::HostBuffer>(bytes);
}

std::unique_ptr<core::CommTimer> MpiCommunicator::timer() {
  return std::make_unique<core::HostTimer>();
}

void MpiCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType type,
                                 core::ReduceOp op) {
  for_each_piece(count, [&](std::size_t offset, int piece) {
    const void* piece_send = send == recv ? MPI_IN_PLACE : at(send, offset, type);
    SCALETUNE_MPI_CHECK(MPI_Allreduce(piece_send, at(recv, offset, type), piece, mpi_datatype(type),
                                      detail::mpi_sum(type), m_comm));
  });
  finish(op, type, recv, count, m_size);
}

void MpiCommunicator::start_all_reduce(const void* send, void* recv, std::size_t count, DType type,
                                       core::ReduceOp op) {
  for_each_piece(count, [&](std::size_t offset, int piece) {
    const void* piece_send = send == recv ? MPI_IN_PLACE : at(send, offset, type);
    MPI_Request request = MPI_REQUEST_NULL;
    SCALETUNE_MPI_CHECK(MPI_Iallreduce(piece_send, at(recv, offset, type), piece,
                                       mpi_datatype(type), detail::mpi_sum(type), m_comm,
                                       &request));
    m_started.push_back(request);
  });
  if (op == core::ReduceOp::avg) m_averages.push_back({recv, count, type});
}

bool MpiCommunicator::progress_started() {
  if (m_started.empty()) return true;
  int done = 0;
  SCALETUNE_MPI_CHECK(MPI_Testall(static_cast<int>(m_started.size()), m_started.data(), &done,
                                  MPI_STATUSES_IGNORE));
  return done != 0;
}

void MpiCommunicator::wait_started() {
  SCALETUNE_MPI_CHECK(
      MPI_Waitall(static_cast<int>(m_started.size()), m_started.data(), MPI_STATUSES_IGNORE));
  m_started.clear();  // keeps the capacity
  for (const StartedAverage& a : m_averages)
    finish(core::ReduceOp::avg, a.type, a.recv, a.count, m_size);
  m_averages.clear();
}

void MpiCommunicator::reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                     DType type, core::ReduceOp op) {
  const int n = mpi_count(recv_count, "reduce_scatter", "recv_count");
  if (recv == at(send, static_cast<std::size_t>(m_rank) * recv_count, type)) {
    // In place, MPI reads every block from the buffer and leaves the result at its start.
    void* whole = const_cast<void*>(send);
    SCALETUNE_MPI_CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, whole, n, mpi_datatype(type),
                                                 detail::mpi_sum(type), m_comm));
    if (recv != whole) std::memmove(recv, whole, recv_count * core::dtype_bytes(type));
  } else {
    SCALETUNE_MPI_CHECK(
        MPI_Reduce_scatter_block(send, recv, n, mpi_datatype(type), detail::mpi_sum(type), m_comm));
  }
  finish(op, type, recv, recv_count, m_size);
}

void MpiCommunicator::reduce_scatterv(const void* send, void* recv,
                                      std::span<const std::size_t> counts, DType type,
                                      core::ReduceOp op) {
  const auto v = detail::displaced_counts(counts, m_size, "reduce_scatterv", "counts");
  SCALETUNE_MPI_CHECK(MPI_Reduce_scatter(send, recv, v.counts.data(), mpi_datatype(type),
                                         detail::mpi_sum(type), m_comm));
  finish(op, type, recv, counts[static_cast<std::size_t>(m_rank)], m_size);
}

void MpiCommunicator::all_gather(const void* send, void* recv, std::size_t send_count, DType type) {
  const int n = mpi_count(send_count, "all_gather", "send_count");
  const bool in_place = send == at(recv, static_cast<std::size_t>(m_rank) * send_count, type);
  SCALETUNE_MPI_CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : send, n, mpi_datatype(type), recv, n,
                                    mpi_datatype(type), m_comm));
}

void MpiCommunicator::all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                                  DType type) {
  const auto v = detail::displaced_counts(counts, m_size, "all_gatherv", "counts");
  const auto own = static_cast<std::size_t>(m_rank);
  const bool in_place = send == at(recv, static_cast<std::size_t>(v.displacements[own]), type);
  SCALETUNE_MPI_CHECK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, v.counts[own],
                                     mpi_datatype(type), recv, v.counts.data(),
                                     v.displacements.data(), mpi_datatype(type), m_comm));
}

void MpiCommunicator::all_to_all(const void* send, void* recv, std::size_t count, DType type) {
  const int n = mpi_count(count, "all_to_all", "count");
  SCALETUNE_MPI_CHECK(MPI_Alltoall(send == recv ? MPI_IN_PLACE : send, n, mpi_datatype(type), recv,
                                   n, mpi_datatype(type), m_comm));
}

void MpiCommunicator::all_to_allv(const void* send, std::span<const std::size_t> send_counts,
                                  void* recv, std::span<const std::size_t> recv_counts,
                                  DType type) {
  const auto s = detail::displaced_counts(send_counts, m_size, "all_to_allv", "send_counts");
  const auto r = detail::displaced_counts(recv_counts, m_size, "all_to_allv", "recv_counts");
  SCALETUNE_MPI_CHECK(MPI_Alltoallv(send, s.counts.data(), s.displacements.data(),
                                    mpi_datatype(type), recv, r.counts.data(),
                                    r.displacements.data(), mpi_datatype(type), m_comm));
}

// MPI_Bcast has one buffer: out of place, the root first copies send into recv.
void MpiCommunicator::broadcast(const void* send, void* recv, std::size_t count, DType type,
                                int root) {
  if (root < 0 || root >= m_size)
    throw std::invalid_argument("broadcast: root " + std::to_string(root) + " outside [0, " +
                                std::to_string(m_size) + ")");
  const int n = mpi_count(count, "broadcast", "count");
  if (m_rank == root && send != recv && count > 0)
    std::memcpy(recv, send, count * core::dtype_bytes(type));
  SCALETUNE_MPI_CHECK(MPI_Bcast(recv, n, mpi_datatype(type), root, m_comm));
}

void MpiCommunicator::barrier() {
  SCALETUNE_MPI_CHECK(MPI_Barrier(m_comm));
}

}  // namespace scaletune::mpi
