#pragma once
// A wait for a device's or a peer's work that outlived its limit: a rank stopped or gone left
// the others waiting in a collective. Host-side, so the sweep records it as a timeout without
// any device headers.

#include <stdexcept>

namespace scaletune::core {

/// A wait (for a communicator's stream, an event) that did not end within its limit; the
/// backend has given the communicator up (NCCL: ncclCommAbort) before throwing it. A sweep
/// records the configuration as timeout (mpi::classify_failure) and goes on.
class WaitTimedOut : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace scaletune::core
