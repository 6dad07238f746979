#pragma once
// The communicator interface workloads use for their collectives. Backends (MPI on host
// memory, NCCL on device memory) live in their own folders; workloads only see this header.
// Counts are in elements, never bytes; semantics and in-place conventions follow NCCL's
// (docs.nvidia.com/deeplearning/nccl, "Collective Operations").

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/core/dtype.hpp"
#include "harness/core/reduce_op.hpp"

namespace scaletune::core {

/// Where a communicator's buffers live.
enum class MemorySpace { host, device };

/// A buffer in a communicator's memory space (host memory for MPI, device memory for NCCL).
/// Copies to and from the host are synchronous.
class CommBuffer {
 public:
  virtual ~CommBuffer() = default;
  /// Start of the buffer in the communicator's memory space.
  virtual void* data() = 0;
  /// Size, bytes.
  virtual std::size_t bytes() const = 0;
  /// Copies `host` (at most bytes() bytes) to the start of the buffer.
  virtual void upload(std::span<const std::byte> host) = 0;
  /// Copies the first host.size() (<= bytes()) bytes of the buffer to `host`.
  virtual void download(std::span<std::byte> host) const = 0;
};

/// Times work issued to a communicator. mark() records a time stamp after everything issued so
/// far (host: the clock now; device: an event on the communicator's stream, so no waiting).
class CommTimer {
 public:
  virtual ~CommTimer() = default;
  /// Records a time stamp.
  virtual void mark() = 0;
  /// Waits until the last marked work has completed and returns the n - 1 intervals between
  /// the n marks so far, s; forgets the marks.
  virtual std::vector<double> intervals() = 0;
};

/// A group of ranks that run one configuration together.
/// All operations are collective over the group and take buffers in memory_space(); `send`
/// and `recv` hold `count` elements of `type` unless stated otherwise. Operations may return
/// before they complete (device backends queue them on a stream); synchronize() waits.
/// Errors throw std::runtime_error subclasses naming the failed call; a buffer that cannot be
/// allocated throws std::bad_alloc (a sweep records it as oom).
class Communicator {
 public:
  virtual ~Communicator() = default;
  /// This process's rank in the group, [0, size()).
  virtual int rank() const = 0;
  /// Number of ranks in the group (the configuration's world size).
  virtual int size() const = 0;
  /// Backend name stored with results: "mpi", "nccl".
  virtual std::string backend() const = 0;
  /// Where buffers handed to the operations must live.
  virtual MemorySpace memory_space() const = 0;
  /// A new uninitialised buffer of `bytes` bytes in memory_space().
  virtual std::unique_ptr<CommBuffer> allocate(std::size_t bytes) = 0;
  /// A timer of this communicator's work.
  virtual std::unique_ptr<CommTimer> timer() = 0;

  /// recv[i] = op over ranks of send[i], [count] elements. In place: send == recv.
  virtual void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                          ReduceOp op) = 0;
  /// send holds size() * recv_count elements; rank r gets the reduction of block r in recv
  /// [recv_count]. In place: recv == send + rank() * recv_count elements.
  virtual void reduce_scatter(const void* send, void* recv, std::size_t recv_count, DType type,
                              ReduceOp op) = 0;
  /// reduce_scatter with per-rank counts: send holds counts[0] + ... + counts[size()-1] elements;
  /// rank r gets the reduction over ranks of block r (offset counts[0] + ... + counts[r-1]) in
  /// recv [counts[rank()]]. counts has size() entries, equal on every rank; a count may be 0.
  /// recv must not overlap send.
  virtual void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                               DType type, ReduceOp op) = 0;
  /// recv [size() * send_count] = every rank's send [send_count] in rank order.
  /// In place: send == recv + rank() * send_count elements.
  virtual void all_gather(const void* send, void* recv, std::size_t send_count, DType type) = 0;
  /// all_gather with per-rank counts: rank r contributes counts[r] elements (send holds
  /// counts[rank()]); recv holds their sum, rank r's block at offset counts[0] + ... +
  /// counts[r - 1]. counts has size() entries, equal on every rank.
  virtual void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                           DType type) = 0;
  /// send holds size() blocks of `count` elements; block p goes to rank p, which stores it as
  /// its block rank() of recv [size() * count]. send == recv is allowed for timing only: the
  /// result is then unspecified (NCCL has no in-place all-to-all).
  virtual void all_to_all(const void* send, void* recv, std::size_t count, DType type) = 0;
  /// all_to_all with per-peer counts: send_counts[p] elements go to rank p (send blocks
  /// contiguous in rank order), recv_counts[p] elements come from rank p (recv blocks
  /// contiguous in rank order). recv_counts[p] on this rank must equal send_counts[rank()] on
  /// rank p. Both spans have size() entries.
  virtual void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                           std::span<const std::size_t> recv_counts, DType type) = 0;
  /// Copies root's send [count] to every rank's recv [count] (send is read on root only).
  /// In place: send == recv.
  virtual void broadcast(const void* send, void* recv, std::size_t count, DType type, int root) = 0;
  /// Starts recv[i] = op over ranks of send[i], [count] elements (as all_reduce; in place:
  /// send == recv), and may return before it completes, so work can overlap it (a gradient
  /// bucket while backward goes on). send and recv must stay untouched, and neither read nor
  /// written, until wait_started() returns. Any number may be started before one
  /// wait_started(); every rank starts the same ones in the same order. Default: all_reduce
  /// (complete on return).
  virtual void start_all_reduce(const void* send, void* recv, std::size_t count, DType type,
                                ReduceOp op) {
    all_reduce(send, recv, count, type, op);
  }
  /// Drives the started collectives without blocking (host backends: MPI progress); true when
  /// all have completed (results may still need wait_started() to be final, e.g. an average's
  /// division). Default: true.
  virtual bool progress_started() { return true; }
  /// Returns once every started collective has completed (device backends: once work queued
  /// afterwards on the compute stream is ordered after them, without blocking the host); then
  /// none is started. Default: nothing to wait for.
  virtual void wait_started() {}

  /// Returns when every rank has called it (and, on device backends, all work issued before it
  /// has completed).
  virtual void barrier() = 0;
  /// Waits until every operation this rank issued has completed.
  virtual void synchronize() = 0;

  /// In-place sum of host floats over all ranks (host-memory communicators only).
  void all_reduce_sum(std::span<float> data) {
    all_reduce(data.data(), data.data(), data.size(), DType::fp32, ReduceOp::sum);
  }
  /// In-place sum of host doubles over all ranks (host-memory communicators only).
  void all_reduce_sum(std::span<double> data) {
    all_reduce(data.data(), data.data(), data.size(), DType::fp64, ReduceOp::sum);
  }
};

}  // namespace scaletune::core
