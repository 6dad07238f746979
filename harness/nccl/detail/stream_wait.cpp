#include "stream_wait.hpp"

#include <thread>

#include "harness/device/cuda_error.hpp"
#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl::detail {

namespace {

/// Calls query() (cudaStreamQuery or cudaEventQuery, whose text is `call`) once: true when it
/// reports completion; false while cudaErrorNotReady, after checking `comm`'s asynchronous
/// error.
template <class Query>
bool done(Query query, const char* call, ncclComm_t comm) {
  const cudaError_t state = query();
  if (state == cudaSuccess) return true;
  if (state != cudaErrorNotReady) device::check_cuda(state, call, __FILE__, __LINE__);
  ncclResult_t async = ncclSuccess;
  SCALETUNE_NCCL_CHECK(ncclCommGetAsyncError(comm, &async), comm);
  if (async != ncclInProgress) {
    check_nccl(async, "an earlier NCCL operation (reported while waiting)", __FILE__, __LINE__,
               comm);
  }
  return false;
}

/// done() until it reports completion.
template <class Query>
void poll(Query query, const char* call, ncclComm_t comm) {
  while (!done(query, call, comm)) std::this_thread::yield();
}

}  // namespace

bool stream_done(cudaStream_t stream, ncclComm_t comm) {
  return done([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", comm);
}

void wait_for_stream(cudaStream_t stream, ncclComm_t comm) {
  poll([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", comm);
}

void wait_for_event(cudaEvent_t event, ncclComm_t comm) {
  poll([event] { return cudaEventQuery(event); }, "cudaEventQuery(event)", comm);
}

}  // namespace scaletune::nccl::detail
