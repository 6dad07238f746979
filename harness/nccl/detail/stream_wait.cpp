#include "stream_wait.hpp"

#include <string>

#include "harness/core/poll_until.hpp"
#include "harness/core/wait_timed_out.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl::detail {

namespace {

/// Calls query() (cudaStreamQuery or cudaEventQuery, whose text is `call`) once: true when it
/// reports completion; false while cudaErrorNotReady, after checking `comm`'s asynchronous
/// error.
template <class Query>
bool done(Query query, const char* call, const WatchedComm& comm) {
  const cudaError_t state = query();
  if (state == cudaSuccess) return true;
  if (state != cudaErrorNotReady) device::check_cuda(state, call, __FILE__, __LINE__);
  if (comm.comm == nullptr)
    throw NcclError(std::string(call) + ": the NCCL communicator was aborted earlier");
  ncclResult_t async = ncclSuccess;
  SCALETUNE_NCCL_CHECK(ncclCommGetAsyncError(comm.comm, &async), comm.comm);
  if (async != ncclInProgress) {
    check_nccl(async, "an earlier NCCL operation (reported while waiting)", __FILE__, __LINE__,
               comm.comm);
  }
  return false;
}

/// done() until it reports completion, or until comm.wait_limit_s has passed: then the
/// communicator is aborted and core::WaitTimedOut thrown.
template <class Query>
void poll(Query query, const char* call, WatchedComm& comm) {
  core::poll_until(
      [&] { return done(query, call, comm); }, comm.wait_limit_s,
      [&] {
        comm.abort();
        throw core::WaitTimedOut(std::string(call) + " still not complete after " +
                                 std::to_string(comm.wait_limit_s) +
                                 " s (run.timeout_s): a peer rank is stopped or gone; the NCCL "
                                 "communicator was aborted (ncclCommAbort)");
      });
}

}  // namespace

void WatchedComm::abort() noexcept {
  if (comm == nullptr) return;
  static_cast<void>(ncclCommAbort(comm));
  comm = nullptr;
}

bool stream_done(cudaStream_t stream, const WatchedComm& comm) {
  return done([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", comm);
}

void wait_for_stream(cudaStream_t stream, WatchedComm& comm) {
  poll([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", comm);
}

void wait_for_event(cudaEvent_t event, WatchedComm& comm) {
  poll([event] { return cudaEventQuery(event); }, "cudaEventQuery(event)", comm);
}

}  // namespace scaletune::nccl::detail
