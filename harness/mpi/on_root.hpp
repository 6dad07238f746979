#pragma once
// Work only rank 0 does (writing the result file), its failure agreed on by every rank, so
// none waits in a later collective for a rank that has thrown (STYLE.md "Errors").

#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

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
  const AgreedStatus agreed = agree_status(world, local, message);
  if (agreed.status == results::Status::ok) return;
  // Only rank 0 ran fn: its message, without the reporter agree_status puts before it.
  constexpr std::string_view kReporter = "rank 0: ";
  std::string text = agreed.error;
  if (text.starts_with(kReporter)) text.erase(0, kReporter.size());
  throw Error(text);
}

}  // namespace scaletune::mpi
