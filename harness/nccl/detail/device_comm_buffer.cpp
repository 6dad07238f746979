#include "device_comm_buffer.hpp"

#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "harness/nccl/detail/stream_wait.hpp"

namespace scaletune::nccl::detail {

DeviceCommBuffer::DeviceCommBuffer(std::size_t bytes, cudaStream_t stream, WatchedComm& comm)
    : m_memory(bytes), m_stream(stream), m_comm(&comm) {}

void DeviceCommBuffer::upload(std::span<const std::byte> host) {
  copy(m_memory.data(), host.data(), host.size(), cudaMemcpyHostToDevice,
       "DeviceCommBuffer::upload");
}

void DeviceCommBuffer::download(std::span<std::byte> host) const {
  copy(host.data(), m_memory.data(), host.size(), cudaMemcpyDeviceToHost,
       "DeviceCommBuffer::download");
}

void DeviceCommBuffer::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            const char* op) const {
  if (bytes > m_memory.size()) {
    throw std::invalid_argument(std::string(op) + ": " + std::to_string(bytes) +
                                " bytes do not fit the device buffer of " +
                                std::to_string(m_memory.size()) + " bytes");
  }
  if (bytes == 0) return;
  SCALETUNE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, m_stream));
  wait_for_stream(m_stream, *m_comm);
}

}  // namespace scaletune::nccl::detail
