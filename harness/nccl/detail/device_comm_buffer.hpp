#pragma once
// The CommBuffer of NcclCommunicator: device memory whose host copies run on the
// communicator's stream, so they are ordered after the collectives issued before them.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <span>

#include "harness/core/communicator.hpp"
#include "harness/device/device_buffer.hpp"
#include "harness/nccl/detail/stream_wait.hpp"

namespace scaletune::nccl::detail {

/// `bytes` bytes of device memory on the current device. Must not outlive the communicator
/// whose `stream` and `comm` it uses.
class DeviceCommBuffer final : public core::CommBuffer {
 public:
  /// Throws DeviceOutOfMemory (std::bad_alloc) when the device is full.
  DeviceCommBuffer(std::size_t bytes, cudaStream_t stream, WatchedComm& comm);

  void* data() override { return m_memory.data(); }
  std::size_t bytes() const override { return m_memory.size(); }
  /// Waits for the stream's earlier work, then copies (wait_for_stream: core::WaitTimedOut past
  /// the communicator's wait limit); throws std::invalid_argument when
  /// host.size() > bytes().
  void upload(std::span<const std::byte> host) override;
  /// Waits for the stream's earlier work, then copies; throws std::invalid_argument when
  /// host.size() > bytes().
  void download(std::span<std::byte> host) const override;

 private:
  /// Copies `bytes` bytes on the stream and waits for it; `op` names the caller in errors.
  void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
            const char* op) const;

  device::DeviceBuffer<std::byte> m_memory;
  cudaStream_t m_stream;
  WatchedComm* m_comm;
};

}  // namespace scaletune::nccl::detail
