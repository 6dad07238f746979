#pragma once
// core::Communicator over an MPI communicator (host memory only: Open MPI here is not
// CUDA-aware, TOOLCHAIN.md).

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "harness/core/communicator.hpp"

namespace scaletune::mpi {

/// Wraps an MPI communicator it does not own. Buffers are host memory (core::HostBuffer), and
/// every operation but start_all_reduce is a blocking MPI collective: it has completed when it
/// returns.
/// All dtypes; fp16 and bf16 are summed by a user-defined MPI_Op in float, rounded once per
/// addition (detail/half_sum.hpp). ReduceOp::avg is the sum divided locally by size()
/// (core::divide_by_ranks). NCCL's in-place forms map to MPI_IN_PLACE.
/// Errors: MpiError naming the call, file:line, rank and host when MPI fails; MpiError naming
/// the operation when a count or displacement exceeds INT_MAX (MPI-3 counts are int; only
/// all_reduce splits longer messages into pieces); std::invalid_argument for a count span
/// whose length is not size() or a root outside [0, size()).
/// Not final: tests derive from it to inject failures (an allocate() that throws).
class MpiCommunicator : public core::Communicator {
 public:
  explicit MpiCommunicator(MPI_Comm comm);
  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string backend() const override { return "mpi"; }
  core::MemorySpace memory_space() const override { return core::MemorySpace::host; }
  /// A core::HostBuffer; std::bad_alloc when the memory cannot be had.
  std::unique_ptr<core::CommBuffer> allocate(std::size_t bytes) override;
  /// A core::HostTimer (steady_clock).
  std::unique_ptr<core::CommTimer> timer() override;

  /// MPI_Allreduce, in pieces of at most INT_MAX elements.
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp op) override;
  /// MPI_Iallreduce, in pieces of at most INT_MAX elements as all_reduce, fp16 and bf16 through
  /// the same user-defined sum; an average is divided in wait_started(). The requests and the
  /// pending averages live in vectors reserved at construction (kReservedStarts entries), so
  /// starting allocates nothing unless more are in flight at once than ever before.
  void start_all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                        core::ReduceOp op) override;
  /// MPI_Testall over the started requests (which lets MPI progress them); true when all have
  /// completed. Averages are not divided yet: wait_started() finishes them.
  bool progress_started() override;
  /// MPI_Waitall over the started requests, then divides each started average by size().
  void wait_started() override;
  /// MPI_Reduce_scatter_block. In place, MPI leaves this rank's block at the start of send;
  /// it is moved to recv, and the rest of send is left unspecified.
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, core::DType type,
                      core::ReduceOp op) override;
  /// MPI_Reduce_scatter, recvcounts the counts. Like all_gatherv it refuses a count or a block
  /// offset above INT_MAX, and a counts span whose length is not size().
  void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                       core::DType type, core::ReduceOp op) override;
  /// MPI_Allgather.
  void all_gather(const void* send, void* recv, std::size_t send_count, core::DType type) override;
  /// MPI_Allgatherv, displacements the prefix sums of counts. In place like all_gather: send
  /// == recv + counts[0] + ... + counts[rank() - 1] elements.
  void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                   core::DType type) override;
  /// MPI_Alltoall; send == recv uses MPI_IN_PLACE (the result is then the exchange itself).
  void all_to_all(const void* send, void* recv, std::size_t count, core::DType type) override;
  /// MPI_Alltoallv, displacements the prefix sums of the counts.
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t> recv_counts, core::DType type) override;
  /// MPI_Bcast.
  void broadcast(const void* send, void* recv, std::size_t count, core::DType type,
                 int root) override;
  /// MPI_Barrier.
  void barrier() override;
  /// Nothing to wait for: every operation but start_all_reduce is a blocking MPI call (started
  /// ones are waited for by wait_started()).
  void synchronize() override {}

  /// The wrapped communicator.
  MPI_Comm native() const { return m_comm; }

 private:
  /// A started average: recv [count] of `type`, to be divided once its sum has arrived.
  struct StartedAverage {
    void* recv;
    std::size_t count;
    core::DType type;
  };
  /// Started collectives the vectors hold without reallocating.
  static constexpr std::size_t kReservedStarts = 64;

  MPI_Comm m_comm;
  int m_rank = 0;
  int m_size = 1;
  std::vector<MPI_Request> m_started;      ///< one per started piece, since wait_started()
  std::vector<StartedAverage> m_averages;  ///< started averages, since wait_started()
};

}  // namespace scaletune::mpi
