#pragma once
// Waiting for work on a communicator's stream without hanging on a failed or stopped peer:
// poll the stream (or an event) and the communicator's asynchronous error in turn, as
// nccl-tests does (src/common.cu, testStreamSynchronize), and give the communicator up
// (ncclCommAbort) when one wait outlives its limit, as PyTorch's NCCL watchdog does.

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace scaletune::nccl::detail {

/// An NCCL communicator as the waits see it. Owned by NcclCommunicator; its buffers and
/// timers hold a pointer to it, so they see the abort.
struct WatchedComm {
  ncclComm_t comm = nullptr;  ///< nullptr before ncclCommInitRank and after abort()
  double wait_limit_s = 0;    ///< how long one wait may last, s (> 0)
  /// ncclCommAbort (which ends the communicator's kernels still on the device and frees it),
  /// once; comm becomes nullptr. Never throws.
  void abort() noexcept;
};

/// True when everything issued to `stream` has completed, false while some is still running;
/// never blocks. Throws NcclError when the communicator reports an asynchronous error (or was
/// aborted), CudaError when the stream reports a CUDA error (StickyCudaError for a sticky one).
bool stream_done(cudaStream_t stream, const WatchedComm& comm);

/// Returns once everything issued to `stream` has completed. Throws as stream_done, and
/// core::WaitTimedOut after aborting the communicator when that takes longer than
/// comm.wait_limit_s.
void wait_for_stream(cudaStream_t stream, WatchedComm& comm);

/// Returns once `event` has completed; throws as wait_for_stream.
void wait_for_event(cudaEvent_t event, WatchedComm& comm);

}  // namespace scaletune::nccl::detail
