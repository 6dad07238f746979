#include "event_timer.hpp"

#include <utility>

#include "harness/device/cuda_error.hpp"
#include "harness/nccl/detail/stream_wait.hpp"

namespace scaletune::nccl::detail {

void EventTimer::mark() {
  if (m_marks == m_events.size()) {
    cudaEvent_t event = nullptr;
    SCALETUNE_CUDA_CHECK(cudaEventCreate(&event));
    m_events.emplace_back(event);
  }
  SCALETUNE_CUDA_CHECK(cudaEventRecord(m_events[m_marks].get(), m_stream));
  ++m_marks;
}

std::vector<double> EventTimer::intervals() {
  const std::size_t marks = std::exchange(m_marks, 0);
  if (marks == 0) return {};
  wait_for_event(m_events[marks - 1].get(), *m_comm);
  std::vector<double> elapsed_s(marks - 1);
  for (std::size_t i = 1; i < marks; ++i) {
    float elapsed_ms = 0.0f;
    SCALETUNE_CUDA_CHECK(
        cudaEventElapsedTime(&elapsed_ms, m_events[i - 1].get(), m_events[i].get()));
    elapsed_s[i - 1] = 1e-3 * elapsed_ms;
  }
  return elapsed_s;
}

}  // namespace scaletune::nccl::detail
