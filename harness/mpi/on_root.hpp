#pragma once
// Work only rank 0 does (writing the result file), its failure agreed on by every rank, so
// none waits in a later collective for a rank that has thrown (STYLE.md "Errors").

#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/status_agreement.hpp"

namespace scaletune::mpi {

/// Collective over `world`: runs `fn` on rank 0 only; an exception there is rethrown on every
/// rank as an Error holding rank 0's message.
template <typename Error = std::runtime_error, typename Fn>
void on_root(MPI_Comm world, Fn&& fn) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(world, &rank));
  results::Status local = results::Status::ok;
  std::string message;
  if (rank == 0) {
    try {
      fn();
    } catch (const std::exception& e) {
      local = results::Status::error;
      message = e.what();
    }
  }
  if (worst_status(world, local) == results::Status::ok) return;
  throw Error(broadcast_text(world, message, 0));
}

}  // namespace scaletune::mpi
