#pragma once
// Verifies and times one case on one rank, the way nccl-tests does: one checked run, warm-up
// runs, then `iterations` runs back to back between two time stamps.

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/collectives/bench_case.hpp"
#include "harness/core/communicator.hpp"

namespace scaletune::collectives {

/// The two buffers every case of a configuration uses, in the communicator's memory space,
/// allocated once for the largest case.
struct BenchBuffers {
  std::unique_ptr<core::CommBuffer> send;
  std::unique_ptr<core::CommBuffer> recv;
};

/// Sizes of the two buffers, bytes, for every case of `cases` in both placements: send the
/// largest send buffer, recv the largest of send and receive buffers (in place it holds both).
struct BufferBytes {
  std::size_t send = 0;
  std::size_t recv = 0;
};
BufferBytes buffer_bytes(const std::vector<BenchCase>& cases);

/// The buffers of buffer_bytes(cases) in comm's memory space. Throws std::bad_alloc when the
/// memory space is full.
BenchBuffers allocate_buffers(core::Communicator& comm, const std::vector<BenchCase>& cases);

/// One rank's figures of one case.
struct CaseMeasurement {
  double time_per_op_s = 0.0;  ///< this rank's time of the timed block / iterations, s
  std::int64_t wrong = -1;     ///< wrong elements of the checked run; -1 when not verifiable
};

/// Collective over `comm`: uploads the input, runs the op once and counts wrong elements
/// (verification.hpp), runs it `warmup` times, meets at a barrier, then times `iterations`
/// runs between two marks of comm.timer() (the timer waits for the device before it reads).
/// Throws what the communicator throws.
CaseMeasurement measure_case(core::Communicator& comm, const BenchCase& c, Placement placement,
                             BenchBuffers& buffers, int warmup, int iterations);

}  // namespace scaletune::collectives
