#pragma once
// Ranks agree on a configuration's outcome with an allreduce, so all skip or all go on
// together and exceptions never cross a collective (STYLE.md "Errors").

#include <mpi.h>

#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// Severity order used to agree: ok < timeout < oom < error (skipped is never agreed on).
int severity(results::Status s);

/// The agreed outcome: the most severe status over ranks, with the message of the lowest rank
/// that reported it, prefixed "rank R: ".
struct AgreedStatus {
  results::Status status = results::Status::ok;
  std::string error;
};

/// Collective over `comm`: every rank passes its own status and message; all get the same answer.
AgreedStatus agree_status(MPI_Comm comm, results::Status local, const std::string& message);

/// Collective over `comm`: the most severe status over ranks (one small allreduce; no message).
results::Status worst_status(MPI_Comm comm, results::Status local);

}  // namespace scaletune::mpi
