#pragma once
// Ranks agree on a configuration's outcome with an allreduce, so all skip or all go on
// together and exceptions never cross a collective (STYLE.md "Errors").

#include <mpi.h>

#include <optional>
#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// Severity order used to agree: ok < timeout < oom < error < cancelled (skipped is never
/// agreed on; a lost device is above all).
int severity(results::Status s);

/// A rank whose device became unusable (core::FatalDeviceError) while the ranks of a
/// communicator ran a configuration.
struct DeviceLoss {
  int rank = 0;         ///< the lowest such rank, in the communicator the status was agreed on
  std::string message;  ///< its error message
};

/// The agreed outcome: the most severe status over ranks, with the message of the lowest rank
/// that reported it, prefixed "rank R: ". A rank's unusable device is more severe than any
/// other error: when one rank reports it, that is the agreed error, and device_lost says who.
struct AgreedStatus {
  results::Status status = results::Status::ok;
  std::string error;
  std::optional<DeviceLoss> device_lost;  ///< set when the agreed error is a device's loss
};

/// Collective over `comm`: every rank passes its own status and message, and whether its
/// failure left its device unusable (`fatal_device`, status error); all get the same answer.
AgreedStatus agree_status(MPI_Comm comm, results::Status local, const std::string& message,
                          bool fatal_device = false);

/// Collective over `comm`: `root`'s `text`, on every rank (its length, then its bytes).
std::string broadcast_text(MPI_Comm comm, const std::string& text, int root);

/// Collective over `comm`: the most severe status over ranks (one small allreduce; no message).
results::Status worst_status(MPI_Comm comm, results::Status local);

}  // namespace scaletune::mpi
