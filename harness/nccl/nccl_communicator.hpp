#pragma once
// core::Communicator on NCCL: collectives on device memory, queued on the communicator's own
// non-blocking CUDA stream. One NcclCommunicator per sub-communicator of a sweep.

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "harness/core/communicator.hpp"
#include "harness/device/detail/unique_handle.hpp"

namespace scaletune::nccl {

/// NCCL collectives over the ranks of an MPI communicator, one CUDA device per rank.
/// Buffers are device pointers (allocate() gives them); operations return once queued and
/// synchronize() waits for them. Not copyable or movable; buffers and timers it hands out must
/// not outlive it.
class NcclCommunicator final : public core::Communicator {
 public:
  /// Collective over `comm` (which must outlive this object; barrier() uses it): binds this
  /// process to CUDA `device` (cudaSetDevice), creates a non-blocking stream, and builds the
  /// NCCL communicator (rank 0's ncclGetUniqueId broadcast over `comm`, ncclCommInitRank).
  /// Throws device::CudaError "no CUDA device ..." before anything else when the
  /// process sees no device; CudaError, NcclError or mpi::MpiError when a call fails.
  NcclCommunicator(MPI_Comm comm, int device);
  /// ncclCommDestroy (waits for queued work), or ncclCommAbort when the communicator reports
  /// an asynchronous error; then destroys the stream. Never throws.
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
  /// synchronize(), then MPI_Barrier on the MPI communicator given to the constructor: NCCL
  /// has no barrier, and waiting for the stream first makes every rank's earlier work complete
  /// before any rank returns.
  void barrier() override;
  /// Waits for this rank's stream, polling the communicator's asynchronous error meanwhile
  /// (throws NcclError when one appears rather than waiting forever for a failed peer).
  void synchronize() override;

 private:
  using Stream = device::detail::UniqueHandle<cudaStream_t, &cudaStreamDestroy>;

  MPI_Comm m_host_comm;
  int m_rank = 0;
  int m_size = 1;
  Stream m_stream;
  ncclComm_t m_comm = nullptr;
};

}  // namespace scaletune::nccl
