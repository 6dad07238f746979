#include "nccl_error.hpp"

#include <string>

#include "harness/core/error_context.hpp"

namespace scaletune::nccl {

namespace {

/// " (NCCL rank R)" for `comm`, plus "; the communicator reports an asynchronous error: ..."
/// when it has one; "" without a communicator.
std::string describe_comm(ncclComm_t comm) {
  if (comm == nullptr) return "";
  int rank = -1;
  std::string text = ncclCommUserRank(comm, &rank) == ncclSuccess
                         ? " (NCCL rank " + std::to_string(rank) + ")"
                         : std::string(" (NCCL rank unknown)");
  ncclResult_t async = ncclSuccess;
  if (ncclCommGetAsyncError(comm, &async) == ncclSuccess && async != ncclSuccess &&
      async != ncclInProgress) {
    text += "; the communicator reports an asynchronous error: ";
    text += ncclGetErrorString(async);
  }
  return text;
}

}  // namespace

void check_nccl(int code, const char* call, const char* file, int line, ncclComm_t comm) {
  if (code == ncclSuccess) return;
  std::string detail = ncclGetErrorString(static_cast<ncclResult_t>(code)) + describe_comm(comm);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') detail += std::string(" (last NCCL error: ") + last + ")";
  throw NcclError(core::failed_call_message(call, file, line, detail));
}

}  // namespace scaletune::nccl
