#pragma once
// A communicator of rank r among n ranks with no peers behind it, for a step described without
// running it (scaletune trace, predict): each rank's workload runs over one, wrapped in a
// RecordingCommunicator, so any rank count can be described in one process. Collectives on
// described memory (core::is_described) move nothing. Collectives on host memory (what a
// workload exchanges to plan, such as every rank's memory budget) are answered from what the
// other ranks sent in an earlier description of the same step (HostExchanges), and what this
// rank sends is kept for the next: describing every rank again until the exchanges repeat gives
// each rank what the real group would (kernels::describe::describe_ranks).

#include <cstddef>
#include <vector>

#include "harness/core/communicator.hpp"

namespace scaletune::core {

/// The host-memory send buffer of each collective call of each rank, [ranks][calls] (empty for
/// a call on described memory).
using HostExchanges = std::vector<std::vector<std::vector<std::byte>>>;

/// Rank `rank` of `size` ranks in `space`, named `backend` ("mpi", "nccl"). `earlier`: every
/// rank's sends of an earlier description (may be null or lack calls: their data reads as
/// zeros). Host-memory all_reduce (sum or avg), all_gather(v)
/// and broadcast are answered from it; a host-memory reduce_scatter(v) or all-to-all(v) throws
/// std::logic_error (no workload plans with them). allocate() returns buffers of no memory
/// (data() null, download() writes zeros); timers measure nothing (intervals() all 0). Throws
/// std::invalid_argument unless 0 <= rank < size.
class DetachedCommunicator final : public Communicator {
 public:
  DetachedCommunicator(int rank, int size, std::string backend, MemorySpace space,
                       const HostExchanges* earlier = nullptr);

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string backend() const override { return m_backend; }
  MemorySpace memory_space() const override { return m_space; }
  std::unique_ptr<CommBuffer> allocate(std::size_t bytes) override;
  std::unique_ptr<CommTimer> timer() override;

  void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                  ReduceOp op) override;
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, DType type,
                      ReduceOp op) override;
  void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                       DType type, ReduceOp op) override;
  void all_gather(const void* send, void* recv, std::size_t send_count, DType type) override;
  void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                   DType type) override;
  void all_to_all(const void* send, void* recv, std::size_t count, DType type) override;
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t> recv_counts, DType type) override;
  void broadcast(const void* send, void* recv, std::size_t count, DType type, int root) override;
  void barrier() override { keep(nullptr, 0); }
  void synchronize() override {}

  /// This rank's sends so far, one entry per collective call (this rank's row of HostExchanges).
  const std::vector<std::vector<std::byte>>& sends() const { return m_sends; }

 private:
  /// Keeps `bytes` bytes at send (nothing for described memory) as this call's entry; returns
  /// the call's index.
  std::size_t keep(const void* send, std::size_t bytes);
  /// Rank p's send of call `call` in the earlier description, resized to `bytes` (zeros where
  /// it had none).
  std::vector<std::byte> earlier_send(int p, std::size_t call, std::size_t bytes) const;
  void gather(std::size_t call, void* recv, std::span<const std::size_t> counts, DType type);
  void refuse_host(const char* op, const void* send, const void* recv) const;

  int m_rank;
  int m_size;
  std::string m_backend;
  MemorySpace m_space;
  const HostExchanges* m_earlier;
  std::vector<std::vector<std::byte>> m_sends;
};

}  // namespace scaletune::core
