#pragma once
// Every NCCL call goes through SCALETUNE_NCCL_CHECK, which throws NcclError naming the call,
// file:line, rank, host and device (core::failed_call_message), the NCCL rank and NCCL's own
// explanation (STYLE.md "Errors").

#include <nccl.h>

#include <stdexcept>

namespace scaletune::nccl {

/// An NCCL call failed, or a communicator reported an asynchronous error.
class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws NcclError when `code` (an ncclResult_t) is not ncclSuccess. The message is
/// core::failed_call_message of `call` (the call's text) and file:line, with the detail
/// ncclGetErrorString(code), with a `comm` (may be nullptr) its rank and any asynchronous error
/// it reports, and ncclGetLastError.
void check_nccl(int code, const char* call, const char* file, int line, ncclComm_t comm);

}  // namespace scaletune::nccl

/// Checks `call` (returning ncclResult_t) on communicator `comm` (nullptr before one exists).
#define SCALETUNE_NCCL_CHECK(call, comm) \
  ::scaletune::nccl::check_nccl(static_cast<int>(call), #call, __FILE__, __LINE__, (comm))
