#pragma once
// The communicator interface workloads use for their collectives. Backends (MPI now, NCCL
// later) live in their own folders; workloads only see this header.

#include <span>
#include <string>

namespace scaletune::core {

/// A group of ranks that run one configuration together.
/// All calls are collective over the group; errors are thrown as std::runtime_error
/// subclasses naming the failed call.
class Communicator {
 public:
  virtual ~Communicator() = default;
  /// This process's rank in the group, [0, size()).
  virtual int rank() const = 0;
  /// Number of ranks in the group (the configuration's world size).
  virtual int size() const = 0;
  /// In-place element-wise sum over all ranks. `data` is host memory, [count] floats.
  virtual void all_reduce_sum(std::span<float> data) = 0;
  /// In-place element-wise sum over all ranks of doubles, host memory.
  virtual void all_reduce_sum(std::span<double> data) = 0;
  /// Returns when every rank has called it.
  virtual void barrier() = 0;
  /// Backend name stored with results: "mpi", "nccl".
  virtual std::string backend() const = 0;
};

}  // namespace scaletune::core
