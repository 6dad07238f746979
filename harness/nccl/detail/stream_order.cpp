#include "stream_order.hpp"

#include "harness/device/cuda_error.hpp"

namespace scaletune::nccl::detail {

namespace {

device::detail::UniqueHandle<cudaEvent_t, &cudaEventDestroy> make_event() {
  cudaEvent_t event = nullptr;
  SCALETUNE_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return device::detail::UniqueHandle<cudaEvent_t, &cudaEventDestroy>(event);
}

/// `waiting` waits on the device for everything queued on `source` so far, through `event`.
void wait_on(cudaStream_t waiting, cudaStream_t source, cudaEvent_t event) {
  SCALETUNE_CUDA_CHECK(cudaEventRecord(event, source));
  SCALETUNE_CUDA_CHECK(cudaStreamWaitEvent(waiting, event, 0));
}

}  // namespace

StreamOrder::StreamOrder(cudaStream_t compute, cudaStream_t comm)
    : m_compute(compute),
      m_comm(comm),
      m_inputs_ready(make_event()),
      m_outputs_ready(make_event()) {}

void StreamOrder::comm_after_compute() {
  wait_on(m_comm, m_compute, m_inputs_ready.get());
}

void StreamOrder::compute_after_comm() {
  wait_on(m_compute, m_comm, m_outputs_ready.get());
}

}  // namespace scaletune::nccl::detail
