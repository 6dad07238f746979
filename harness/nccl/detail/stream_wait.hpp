#pragma once
// Waiting for work on a communicator's stream without hanging on a failed peer: poll the
// stream (or an event) and the communicator's asynchronous error in turn, as nccl-tests does
// (src/common.cu, testStreamSynchronize). There is no timeout here: the sweep's watchdog
// stops ranks that never return.

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace scaletune::nccl::detail {

/// True when everything issued to `stream` has completed, false while some is still running;
/// never blocks. Throws NcclError when `comm` reports an asynchronous error, CudaError when
/// the stream reports a CUDA error (StickyCudaError for a sticky one).
bool stream_done(cudaStream_t stream, ncclComm_t comm);

/// Returns once everything issued to `stream` has completed. Throws as stream_done.
void wait_for_stream(cudaStream_t stream, ncclComm_t comm);

/// Returns once `event` has completed; throws as stream_done.
void wait_for_event(cudaEvent_t event, ncclComm_t comm);

}  // namespace scaletune::nccl::detail
