#pragma once
// Turning a rank's exception into a configuration's status and a one-line message.

#include <exception>
#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// oom for std::bad_alloc and for Kokkos' allocation failure (Kokkos 3.x rethrows it as a
/// std::runtime_error whose text starts "Kokkos failed to allocate memory"); timeout for
/// core::WaitTimedOut (a wait for a stopped peer given up); error otherwise.
results::Status classify_failure(const std::exception& e);

/// `text` on one line: newlines and runs of white space become one space, Kokkos' trailing
/// "Traceback functionality not available" is dropped, and the ends are trimmed.
std::string one_line(const std::string& text);

}  // namespace scaletune::mpi
