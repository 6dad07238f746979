#pragma once
// A core::Communicator of one rank for the CUDA backend's tests: over one rank every collective
// is a copy of send into recv (nothing at all in place), so a workload or a synchronised batch
// norm can run on one GPU without MPI or NCCL. On device memory the copies are queued on the
// CUDA context's compute stream, which orders them with the backend's ops exactly as
// NcclCommunicator's events do; on host memory they are std::memcpy.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/core/communicator.hpp"
#include "harness/core/dtype.hpp"
#include "harness/core/host_buffer.hpp"
#include "harness/core/host_timer.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"

namespace scaletune::device::testing {

/// `bytes` bytes of device memory whose host copies run on `stream` and wait for it.
class StreamCommBuffer final : public core::CommBuffer {
 public:
  StreamCommBuffer(std::size_t bytes, cudaStream_t stream) : m_memory(bytes), m_stream(stream) {}
  void* data() override { return m_memory.data(); }
  std::size_t bytes() const override { return m_memory.size_bytes(); }
  /// Copies `host` to the start; throws std::invalid_argument when it is longer than bytes().
  void upload(std::span<const std::byte> host) override {
    copy(m_memory.data(), host.data(), host.size(), cudaMemcpyHostToDevice);
  }
  /// Copies the first host.size() bytes to `host`; throws as upload.
  void download(std::span<std::byte> host) const override {
    copy(host.data(), m_memory.data(), host.size(), cudaMemcpyDeviceToHost);
  }

 private:
  void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) const {
    if (bytes > m_memory.size_bytes())
      throw std::invalid_argument("StreamCommBuffer: " + std::to_string(bytes) +
                                  " bytes, the buffer has " +
                                  std::to_string(m_memory.size_bytes()));
    if (bytes == 0) return;
    SCALETUNE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, m_stream));
    SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }

  DeviceBuffer<std::byte> m_memory;
  cudaStream_t m_stream;
};

/// Rank 0 of a group of 1, backend "single-rank", on device memory (the CUDA context given) or
/// host memory (no context). Counts the all-reduces (started ones included) and the elements
/// they covered, so a test can check that an op synchronised what it should.
class SingleRankCommunicator final : public core::Communicator {
 public:
  /// Host memory.
  SingleRankCommunicator() = default;
  /// Device memory of `context` (which must outlive it); copies on its compute stream.
  explicit SingleRankCommunicator(CudaContext& context) : m_context(&context) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "single-rank"; }
  core::MemorySpace memory_space() const override {
    return m_context != nullptr ? core::MemorySpace::device : core::MemorySpace::host;
  }
  std::unique_ptr<core::CommBuffer> allocate(std::size_t bytes) override {
    if (m_context == nullptr) return std::make_unique<core::HostBuffer>(bytes);
    return std::make_unique<StreamCommBuffer>(bytes, m_context->compute_stream());
  }
  std::unique_ptr<core::CommTimer> timer() override { return std::make_unique<core::HostTimer>(); }

  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp) override {
    ++m_all_reduces;
    m_all_reduced_elements += count;
    copy(send, recv, count, type);
  }
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, core::DType type,
                      core::ReduceOp) override {
    copy(send, recv, recv_count, type);
  }
  void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                       core::DType type, core::ReduceOp) override {
    copy(send, recv, one_count("reduce_scatterv", counts), type);
  }
  void all_gather(const void* send, void* recv, std::size_t send_count, core::DType type) override {
    copy(send, recv, send_count, type);
  }
  void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                   core::DType type) override {
    copy(send, recv, one_count("all_gatherv", counts), type);
  }
  void all_to_all(const void* send, void* recv, std::size_t count, core::DType type) override {
    copy(send, recv, count, type);
  }
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t> recv_counts, core::DType type) override {
    const std::size_t count = one_count("all_to_allv", send_counts);
    if (one_count("all_to_allv", recv_counts) != count)
      throw std::invalid_argument(
          "SingleRankCommunicator::all_to_allv: send and recv counts differ");
    copy(send, recv, count, type);
  }
  void broadcast(const void* send, void* recv, std::size_t count, core::DType type,
                 int root) override {
    if (root != 0)
      throw std::invalid_argument("SingleRankCommunicator::broadcast: root " +
                                  std::to_string(root) + ", expected 0 (one rank)");
    copy(send, recv, count, type);
  }
  void barrier() override { synchronize(); }
  void synchronize() override {
    if (m_context != nullptr)
      SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(m_context->compute_stream()));
  }

  /// All-reduces issued so far (all_reduce and start_all_reduce).
  int all_reduces() const { return m_all_reduces; }
  /// Elements those all-reduces covered, summed.
  std::size_t all_reduced_elements() const { return m_all_reduced_elements; }

 private:
  /// The one entry of a per-rank count list; throws std::invalid_argument unless there is one.
  static std::size_t one_count(const char* op, std::span<const std::size_t> counts) {
    if (counts.size() != 1)
      throw std::invalid_argument(std::string("SingleRankCommunicator::") + op + ": " +
                                  std::to_string(counts.size()) + " counts, expected 1 (one rank)");
    return counts[0];
  }
  /// recv = send, `count` elements of `type` (nothing when they are the same buffer).
  void copy(const void* send, void* recv, std::size_t count, core::DType type) const {
    const std::size_t bytes = count * core::dtype_bytes(type);
    if (send == recv || bytes == 0) return;
    if (m_context == nullptr) {
      std::memcpy(recv, send, bytes);
      return;
    }
    SCALETUNE_CUDA_CHECK(
        cudaMemcpyAsync(recv, send, bytes, cudaMemcpyDeviceToDevice, m_context->compute_stream()));
  }

  CudaContext* m_context = nullptr;
  int m_all_reduces = 0;
  std::size_t m_all_reduced_elements = 0;
};

}  // namespace scaletune::device::testing
