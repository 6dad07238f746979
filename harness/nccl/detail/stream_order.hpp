#pragma once
// Orders a communicator's stream against the rank's compute stream with CUDA events, so no
// host thread blocks: a collective waits on the device for the compute work that made its
// inputs, and later compute waits on the device for the collective's outputs.

#include <cuda_runtime_api.h>

#include "harness/device/detail/unique_handle.hpp"

namespace scaletune::nccl::detail {

/// Two events, created once (cudaEventDisableTiming) and re-recorded at every use, so ordering
/// allocates nothing once built. cudaStreamWaitEvent waits for the event's most recent record
/// at the time of the call, so reusing an event never loses an earlier wait. Both streams must
/// outlive it. Not copyable.
class StreamOrder {
 public:
  /// Throws device::CudaError when an event cannot be created.
  StreamOrder(cudaStream_t compute, cudaStream_t comm);
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;

  /// The comm stream waits for everything queued on the compute stream so far (inputs ready).
  /// Throws device::CudaError.
  void comm_after_compute();
  /// The compute stream waits for everything queued on the comm stream so far (outputs ready).
  /// Throws device::CudaError.
  void compute_after_comm();

 private:
  using Event = device::detail::UniqueHandle<cudaEvent_t, &cudaEventDestroy>;

  cudaStream_t m_compute;
  cudaStream_t m_comm;
  Event m_inputs_ready;   ///< recorded on the compute stream
  Event m_outputs_ready;  ///< recorded on the comm stream
};

}  // namespace scaletune::nccl::detail
