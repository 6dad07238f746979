#pragma once
// core::Communicator on NCCL: collectives on device memory, queued on the communicator's own
// non-blocking CUDA stream and ordered against the rank's compute stream (device::CudaContext)
// with events. One NcclCommunicator per sub-communicator of a sweep.

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "harness/core/communicator.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/detail/unique_handle.hpp"
#include "harness/nccl/detail/stream_order.hpp"
#include "harness/nccl/detail/stream_wait.hpp"

namespace scaletune::nccl {

/// NCCL collectives over the ranks of an MPI communicator, one CUDA device per rank.
/// Buffers are device pointers (allocate() gives them); operations return once queued and
/// synchronize() waits for them. Every collective is ordered against the context's compute
/// stream on the device, without blocking the host: it starts after the compute work queued
/// before the call (an event recorded on the compute stream, waited for by this stream), and,
/// except for started all-reduces, compute work queued after the call starts after it (an
/// event recorded on this stream, waited for by the compute stream). Not copyable or movable;
/// buffers and timers it hands out must not outlive it.
class NcclCommunicator final : public core::Communicator {
 public:
  /// Collective over `comm` (which must outlive this object; barrier() uses it): makes the
  /// context's device current (cudaSetDevice), creates a non-blocking stream and attaches it to
  /// `context` (so context.fence() waits for it too), creates the two ordering events, and
  /// builds the NCCL communicator (rank 0's ncclGetUniqueId broadcast over `comm`,
  /// ncclCommInitRank). `context` must outlive this object. `wait_limit_s` (> 0, s; a sweep
  /// gives run.timeout_s): how long one wait for this communicator's work may last before the
  /// communicator is aborted (synchronize). Throws CudaError, NcclError or mpi::MpiError when a
  /// call fails, std::invalid_argument when wait_limit_s is not > 0.
  NcclCommunicator(MPI_Comm comm, device::CudaContext& context, double wait_limit_s);
  /// Waits for queued work (at most the wait limit), then ncclCommDestroy; ncclCommAbort
  /// instead when the communicator reports an asynchronous error, its work does not finish in
  /// time, or it was aborted already. Then detaches the stream from the context and destroys
  /// it. Never throws.
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  /// "nccl".
  std::string backend() const override { return "nccl"; }
  /// MemorySpace::device.
  core::MemorySpace memory_space() const override { return core::MemorySpace::device; }
  /// `bytes` bytes of device memory (uninitialised); upload/download run on this
  /// communicator's stream and wait for it. Throws std::bad_alloc when the device is full.
  std::unique_ptr<core::CommBuffer> allocate(std::size_t bytes) override;
  /// CUDA events recorded on this communicator's stream.
  std::unique_ptr<core::CommTimer> timer() override;

  /// ncclAllReduce.
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp op) override;
  /// ncclReduceScatter.
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, core::DType type,
                      core::ReduceOp op) override;
  /// One group of size() ncclReduce, root r reducing block r (from send at its offset) into
  /// recv; zero counts skipped. Throws std::invalid_argument when counts has not size() entries.
  void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                       core::DType type, core::ReduceOp op) override;
  /// ncclAllGather.
  void all_gather(const void* send, void* recv, std::size_t send_count, core::DType type) override;
  /// One group of size() ncclBroadcast, root r writing its block at its offset in recv (so the
  /// in-place form needs no copy). Throws std::invalid_argument when counts has not size()
  /// entries.
  void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                   core::DType type) override;
  /// all_to_allv with every count equal to `count`.
  void all_to_all(const void* send, void* recv, std::size_t count, core::DType type) override;
  /// One group of ncclSend and ncclRecv per peer (itself included), zero counts skipped.
  /// Throws std::invalid_argument when a span has not size() entries.
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t> recv_counts, core::DType type) override;
  /// ncclBroadcast in place.
  void broadcast(const void* send, void* recv, std::size_t count, core::DType type,
                 int root) override;
  /// ncclAllReduce queued after the compute work before it, like all_reduce, but the compute
  /// stream is not made to wait: compute queued next overlaps it until wait_started().
  void start_all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                        core::ReduceOp op) override;
  /// True when this communicator's stream has no work left (cudaStreamQuery); never blocks.
  /// Throws NcclError when the communicator reports an asynchronous error.
  bool progress_started() override;
  /// Makes the compute stream wait, on the device, for everything queued on this stream so far
  /// (the started all-reduces included); returns at once (no host block).
  void wait_started() override;
  /// synchronize(), then MPI_Barrier on the MPI communicator given to the constructor: NCCL
  /// has no barrier, and waiting for the stream first makes every rank's earlier work complete
  /// before any rank returns.
  void barrier() override;
  /// Waits for this rank's stream, polling the communicator's asynchronous error meanwhile
  /// (throws NcclError when one appears rather than waiting forever for a failed peer). A wait
  /// longer than the wait limit (a peer stopped or gone) aborts the communicator
  /// (ncclCommAbort, which ends its kernels on the device, so the device stays usable) and
  /// throws core::WaitTimedOut; every later call then throws NcclError.
  void synchronize() override;

 private:
  using Stream = device::detail::UniqueHandle<cudaStream_t, &cudaStreamDestroy>;

  /// Queues `enqueue` (NCCL calls on m_stream) between the two orderings of a collective with
  /// blocking semantics: inputs after earlier compute, later compute after the outputs.
  template <class Enqueue>
  void ordered(Enqueue enqueue);
  /// ncclAllReduce on this stream, no ordering.
  void enqueue_all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                          core::ReduceOp op);

  MPI_Comm m_host_comm;
  device::CudaContext* m_context;
  int m_rank = 0;
  int m_size = 1;
  Stream m_stream;
  detail::StreamOrder m_order;
  bool m_started = false;         ///< start_all_reduce queued work since the last wait_started()
  detail::WatchedComm m_watched;  ///< the NCCL communicator and the waits' limit
};

}  // namespace scaletune::nccl
