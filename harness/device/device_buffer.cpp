#include "device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"

namespace scaletune::device {

DeviceOutOfMemory::DeviceOutOfMemory(std::size_t requested_bytes) noexcept
    : m_requested_bytes(requested_bytes) {
  std::snprintf(m_what.data(), m_what.size(), "out of device memory: cudaMalloc of %zu bytes",
                requested_bytes);
}

namespace detail {
namespace {

/// Checks the element counts, then copies count * element_bytes bytes with `kind`.
void copy_checked(const char* op, void* dst, const void* src, std::size_t host_count,
                  std::size_t device_count, std::size_t element_bytes, cudaMemcpyKind kind) {
  if (host_count != device_count) {
    throw std::invalid_argument(std::string(op) + ": host span has " + std::to_string(host_count) +
                                " elements, expected " + std::to_string(device_count) +
                                " (the device buffer's size)");
  }
  if (device_count == 0) return;
  SCALETUNE_CUDA_CHECK(cudaMemcpy(dst, src, device_count * element_bytes, kind));
}

}  // namespace

void* device_malloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  require_device("DeviceBuffer");
  void* ptr = nullptr;
  const cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so the next call starts clean
    throw DeviceOutOfMemory(bytes);
  }
  SCALETUNE_CUDA_CHECK(err);
  return ptr;
}

void device_free(void* ptr) noexcept {
  // Cleanup never throws: a failing cudaFree leaves nothing to recover.
  if (ptr != nullptr) static_cast<void>(cudaFree(ptr));
}

void copy_to_device(const char* op, void* dst, const void* src, std::size_t host_count,
                    std::size_t device_count, std::size_t element_bytes) {
  copy_checked(op, dst, src, host_count, device_count, element_bytes, cudaMemcpyHostToDevice);
}

void copy_to_host(const char* op, void* dst, const void* src, std::size_t host_count,
                  std::size_t device_count, std::size_t element_bytes) {
  copy_checked(op, dst, src, host_count, device_count, element_bytes, cudaMemcpyDeviceToHost);
}

std::size_t checked_bytes(std::size_t count, std::size_t element_bytes) {
  if (element_bytes != 0 && count > std::numeric_limits<std::size_t>::max() / element_bytes) {
    throw std::length_error("DeviceBuffer: " + std::to_string(count) + " elements of " +
                            std::to_string(element_bytes) + " bytes overflow size_t");
  }
  return count * element_bytes;
}

}  // namespace detail
}  // namespace scaletune::device
