#include "nccl_error.hpp"

#include <unistd.h>

#include <array>
#include <string>

namespace scaletune::nccl {

namespace {

/// ", NCCL rank R" for `comm`, plus "; the communicator reports an asynchronous error: ..." when
/// it has one; "" without a communicator.
std::string describe_comm(ncclComm_t comm) {
  if (comm == nullptr) return "";
  int rank = -1;
  std::string text = ncclCommUserRank(comm, &rank) == ncclSuccess
                         ? ", NCCL rank " + std::to_string(rank)
                         : std::string(", NCCL rank unknown");
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
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  std::string message = std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                        " on " + host.data() + describe_comm(comm) + ": " +
                        ncclGetErrorString(static_cast<ncclResult_t>(code));
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') message += std::string(" (last NCCL error: ") + last + ")";
  throw NcclError(message);
}

}  // namespace scaletune::nccl
