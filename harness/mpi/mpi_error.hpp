#pragma once
// Every MPI call goes through SCALETUNE_MPI_CHECK, which throws MpiError naming the call,
// file:line, rank, host and device (core::failed_call_message; STYLE.md "Errors").

#include <stdexcept>
#include <string>

namespace scaletune::mpi {

/// An MPI call returned an error code.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws MpiError when `code` is not MPI_SUCCESS: core::failed_call_message of `call` (the
/// call's text) and file:line, with MPI_Error_string(code) as the detail. The rank, host and
/// device are the error context the runner set (core/error_context.hpp); none before it did.
void check_mpi(int code, const char* call, const char* file, int line);

}  // namespace scaletune::mpi

#define SCALETUNE_MPI_CHECK(call) ::scaletune::mpi::check_mpi((call), #call, __FILE__, __LINE__)
