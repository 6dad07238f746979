#pragma once
// The CommTimer of NcclCommunicator: CUDA events recorded on the communicator's stream, so a
// mark costs no wait and the intervals are device time between the marks.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/device/detail/unique_handle.hpp"
#include "harness/nccl/detail/stream_wait.hpp"

namespace scaletune::nccl::detail {

/// Marks as CUDA events on `stream`. Events are created on first use and reused after
/// intervals(), so marking in a timed loop allocates nothing once warm. Must not outlive the
/// communicator whose `stream` and `comm` it uses.
class EventTimer final : public core::CommTimer {
 public:
  EventTimer(cudaStream_t stream, WatchedComm& comm) : m_stream(stream), m_comm(&comm) {}

  /// Records an event on the stream (no wait). Throws CudaError.
  void mark() override;
  /// Waits for the last event (polling the communicator's asynchronous error) and returns
  /// cudaEventElapsedTime between consecutive marks, s. Throws CudaError, NcclError, and
  /// core::WaitTimedOut past the communicator's wait limit (wait_for_event).
  std::vector<double> intervals() override;

 private:
  using Event = device::detail::UniqueHandle<cudaEvent_t, &cudaEventDestroy>;

  cudaStream_t m_stream;
  WatchedComm* m_comm;
  std::vector<Event> m_events;  ///< the first m_marks hold the marks since the last intervals()
  std::size_t m_marks = 0;
};

}  // namespace scaletune::nccl::detail
