#include "nccl_communicator.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/device/cuda_error.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/nccl/detail/device_comm_buffer.hpp"
#include "harness/nccl/detail/event_timer.hpp"
#include "harness/nccl/detail/nccl_group.hpp"
#include "harness/nccl/detail/nccl_types.hpp"
#include "harness/nccl/detail/stream_wait.hpp"
#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl {

namespace {

/// Rank 0's ncclGetUniqueId, broadcast over `comm` with its result code, so that every rank
/// throws when it failed instead of waiting in ncclCommInitRank.
ncclUniqueId shared_unique_id(MPI_Comm comm, int rank) {
  struct {
    ncclUniqueId id;
    int result;
  } message{};
  if (rank == 0) message.result = ncclGetUniqueId(&message.id);
  SCALETUNE_MPI_CHECK(MPI_Bcast(&message, sizeof message, MPI_BYTE, 0, comm));
  check_nccl(message.result, "ncclGetUniqueId (on rank 0)", __FILE__, __LINE__, nullptr);
  return message.id;
}

/// A non-blocking stream on device `ordinal`, which it makes current first.
device::detail::UniqueHandle<cudaStream_t, &cudaStreamDestroy> make_stream(int ordinal) {
  SCALETUNE_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaStream_t stream = nullptr;
  SCALETUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return device::detail::UniqueHandle<cudaStream_t, &cudaStreamDestroy>(stream);
}

/// `p` advanced by `elements` elements of `type`.
const void* advance(const void* p, std::size_t elements, core::DType type) {
  return static_cast<const std::byte*>(p) + elements * core::dtype_bytes(type);
}
void* advance(void* p, std::size_t elements, core::DType type) {
  return static_cast<std::byte*>(p) + elements * core::dtype_bytes(type);
}

/// Throws std::invalid_argument unless `counts` has `size` entries; `what` names it.
void require_per_rank(std::span<const std::size_t> counts, int size, const char* what) {
  if (counts.size() == static_cast<std::size_t>(size)) return;
  throw std::invalid_argument(std::string("NcclCommunicator::") + what + " has " +
                              std::to_string(counts.size()) + " entries; expected one per rank (" +
                              std::to_string(size) + ")");
}

}  // namespace

NcclCommunicator::NcclCommunicator(MPI_Comm comm, device::CudaContext& context, double wait_limit_s)
    : m_host_comm(comm),
      m_context(&context),
      m_stream(make_stream(context.ordinal())),
      m_order(context.compute_stream(), m_stream.get()) {
  if (!(wait_limit_s > 0))
    throw std::invalid_argument("NcclCommunicator: wait_limit_s is " +
                                std::to_string(wait_limit_s) + "; expected > 0 s");
  m_watched.wait_limit_s = wait_limit_s;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &m_rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &m_size));
  const ncclUniqueId id = shared_unique_id(comm, m_rank);
  SCALETUNE_NCCL_CHECK(ncclCommInitRank(&m_watched.comm, m_size, id, m_rank), nullptr);
  m_context->attach_stream(m_stream.get());
}

NcclCommunicator::~NcclCommunicator() {
  // A failed communicator, or one whose peer never comes, may never finish its queued work:
  // abort it rather than wait in ncclCommDestroy (STYLE.md "Errors").
  try {
    detail::wait_for_stream(m_stream.get(), m_watched);
  } catch (const std::exception&) {
    m_watched.abort();
  }
  if (m_watched.comm != nullptr) static_cast<void>(ncclCommDestroy(m_watched.comm));
  m_context->detach_stream(m_stream.get());
}

template <class Enqueue>
void NcclCommunicator::ordered(Enqueue enqueue) {
  m_order.comm_after_compute();
  enqueue();
  m_order.compute_after_comm();  // covers any started all-reduce queued before it
  m_started = false;
}

std::unique_ptr<core::CommBuffer> NcclCommunicator::allocate(std::size_t bytes) {
  return std::make_unique<detail::DeviceCommBuffer>(bytes, m_stream.get(), m_watched);
}

std::unique_ptr<core::CommTimer> NcclCommunicator::timer() {
  return std::make_unique<detail::EventTimer>(m_stream.get(), m_watched);
}

void NcclCommunicator::all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                                  core::ReduceOp op) {
  ordered([&] { enqueue_all_reduce(send, recv, count, type, op); });
}

void NcclCommunicator::start_all_reduce(const void* send, void* recv, std::size_t count,
                                        core::DType type, core::ReduceOp op) {
  m_order.comm_after_compute();
  enqueue_all_reduce(send, recv, count, type, op);
  m_started = true;
}

void NcclCommunicator::enqueue_all_reduce(const void* send, void* recv, std::size_t count,
                                          core::DType type, core::ReduceOp op) {
  SCALETUNE_NCCL_CHECK(ncclAllReduce(send, recv, count, detail::nccl_type(type),
                                     detail::nccl_op(op), m_watched.comm, m_stream.get()),
                       m_watched.comm);
}

bool NcclCommunicator::progress_started() {
  return detail::stream_done(m_stream.get(), m_watched);
}

void NcclCommunicator::wait_started() {
  if (!std::exchange(m_started, false)) return;
  m_order.compute_after_comm();
}

void NcclCommunicator::reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                      core::DType type, core::ReduceOp op) {
  ordered([&] {
    SCALETUNE_NCCL_CHECK(ncclReduceScatter(send, recv, recv_count, detail::nccl_type(type),
                                           detail::nccl_op(op), m_watched.comm, m_stream.get()),
                         m_watched.comm);
  });
}

void NcclCommunicator::reduce_scatterv(const void* send, void* recv,
                                       std::span<const std::size_t> counts, core::DType type,
                                       core::ReduceOp op) {
  require_per_rank(counts, m_size, "reduce_scatterv counts");
  ordered([&] {
    detail::NcclGroup group(m_watched.comm);
    std::size_t offset = 0;
    for (int root = 0; root < m_size; ++root) {
      const std::size_t count = counts[static_cast<std::size_t>(root)];
      if (count > 0) {
        // NCCL writes recvbuff on the root only and ignores it on the other ranks.
        SCALETUNE_NCCL_CHECK(
            ncclReduce(advance(send, offset, type), recv, count, detail::nccl_type(type),
                       detail::nccl_op(op), root, m_watched.comm, m_stream.get()),
            m_watched.comm);
      }
      offset += count;
    }
    group.end();
  });
}

void NcclCommunicator::all_gather(const void* send, void* recv, std::size_t send_count,
                                  core::DType type) {
  ordered([&] {
    SCALETUNE_NCCL_CHECK(ncclAllGather(send, recv, send_count, detail::nccl_type(type),
                                       m_watched.comm, m_stream.get()),
                         m_watched.comm);
  });
}

void NcclCommunicator::all_gatherv(const void* send, void* recv,
                                   std::span<const std::size_t> counts, core::DType type) {
  require_per_rank(counts, m_size, "all_gatherv counts");
  ordered([&] {
    detail::NcclGroup group(m_watched.comm);
    std::size_t offset = 0;
    for (int root = 0; root < m_size; ++root) {
      const std::size_t count = counts[static_cast<std::size_t>(root)];
      void* block = advance(recv, offset, type);
      const void* source = root == m_rank ? send : block;  // only the root's source is read
      if (count > 0) {
        SCALETUNE_NCCL_CHECK(ncclBroadcast(source, block, count, detail::nccl_type(type), root,
                                           m_watched.comm, m_stream.get()),
                             m_watched.comm);
      }
      offset += count;
    }
    group.end();
  });
}

void NcclCommunicator::all_to_all(const void* send, void* recv, std::size_t count,
                                  core::DType type) {
  const std::vector<std::size_t> counts(static_cast<std::size_t>(m_size), count);
  all_to_allv(send, counts, recv, counts, type);
}

void NcclCommunicator::all_to_allv(const void* send, std::span<const std::size_t> send_counts,
                                   void* recv, std::span<const std::size_t> recv_counts,
                                   core::DType type) {
  require_per_rank(send_counts, m_size, "all_to_allv send_counts");
  require_per_rank(recv_counts, m_size, "all_to_allv recv_counts");
  const ncclDataType_t nccl_type = detail::nccl_type(type);
  ordered([&] {
    detail::NcclGroup group(m_watched.comm);
    std::size_t send_offset = 0, recv_offset = 0;
    for (int peer = 0; peer < m_size; ++peer) {
      const std::size_t to_peer = send_counts[static_cast<std::size_t>(peer)];
      const std::size_t from_peer = recv_counts[static_cast<std::size_t>(peer)];
      if (to_peer > 0) {
        SCALETUNE_NCCL_CHECK(ncclSend(advance(send, send_offset, type), to_peer, nccl_type, peer,
                                      m_watched.comm, m_stream.get()),
                             m_watched.comm);
      }
      if (from_peer > 0) {
        SCALETUNE_NCCL_CHECK(ncclRecv(advance(recv, recv_offset, type), from_peer, nccl_type, peer,
                                      m_watched.comm, m_stream.get()),
                             m_watched.comm);
      }
      send_offset += to_peer;
      recv_offset += from_peer;
    }
    group.end();
  });
}

void NcclCommunicator::broadcast(const void* send, void* recv, std::size_t count, core::DType type,
                                 int root) {
  ordered([&] {
    SCALETUNE_NCCL_CHECK(ncclBroadcast(send, recv, count, detail::nccl_type(type), root,
                                       m_watched.comm, m_stream.get()),
                         m_watched.comm);
  });
}

void NcclCommunicator::barrier() {
  synchronize();
  SCALETUNE_MPI_CHECK(MPI_Barrier(m_host_comm));
}

void NcclCommunicator::synchronize() {
  detail::wait_for_stream(m_stream.get(), m_watched);
}

}  // namespace scaletune::nccl
