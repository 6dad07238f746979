#include "stream_wait.hpp"

#include <thread>

#include "harness/device/cuda_error.hpp"
#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl::detail {

namespace {

/// Calls query() (cudaStreamQuery or cudaEventQuery, whose text is `call`) until it stops
/// returning cudaErrorNotReady, checking `comm`'s asynchronous error between calls.
template <class Query>
void poll(Query query, const char* call, ncclComm_t comm) {
  for (;;) {
    const cudaError_t state = query();
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) device::check_cuda(state, call, __FILE__, __LINE__);
    ncclResult_t async = ncclSuccess;
    SCALETUNE_NCCL_CHECK(ncclCommGetAsyncError(comm, &async), comm);
    if (async != ncclInProgress) {
      check_nccl(async, "an earlier NCCL operation (reported while waiting)", __FILE__, __LINE__,
                 comm);
    }
    std::this_thread::yield();
  }
}

}  // namespace

void wait_for_stream(cudaStream_t stream, ncclComm_t comm) {
  poll([stream] { return cudaStreamQuery(stream); }, "cudaStreamQuery(stream)", comm);
}

void wait_for_event(cudaEvent_t event, ncclComm_t comm) {
  poll([event] { return cudaEventQuery(event); }, "cudaEventQuery(event)", comm);
}

}  // namespace scaletune::nccl::detail
