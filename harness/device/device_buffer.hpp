#pragma once
// RAII device memory: one cudaMalloc'd array of trivially copyable elements, freed on
// destruction, with synchronous copies to and from host memory. Running out of device memory
// throws DeviceOutOfMemory (a std::bad_alloc), so a sweep records the configuration as oom.

#include <array>
#include <cstddef>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/device/detail/device_memory.hpp"

namespace scaletune::device {

/// cudaMalloc returned cudaErrorMemoryAllocation. what() names the requested size in bytes.
class DeviceOutOfMemory : public std::bad_alloc {
 public:
  explicit DeviceOutOfMemory(std::size_t requested_bytes) noexcept;
  const char* what() const noexcept override { return m_what.data(); }
  std::size_t requested_bytes() const noexcept { return m_requested_bytes; }

 private:
  std::size_t m_requested_bytes;
  std::array<char, 96> m_what{};  // fixed storage: copying an exception must not throw
};

/// `size()` elements of T in device global memory (uninitialised unless built from host data).
/// Move-only; the destructor frees. Copies are synchronous (cudaMemcpy) and need a host span of
/// exactly size() elements. cudaMemcpy runs on the legacy default stream, which does not wait
/// for non-blocking streams (CudaContext's compute stream): fence the context before copying
/// results back, and synchronise the device after an upload that work on such a stream reads.
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable data");

 public:
  /// Empty: no allocation, data() == nullptr.
  DeviceBuffer() = default;

  /// `count` uninitialised elements. Throws DeviceOutOfMemory (std::bad_alloc) when the device
  /// is full, CudaError "no CUDA device" without a device (unless count == 0).
  explicit DeviceBuffer(std::size_t count)
      : m_data(static_cast<T*>(detail::device_malloc(detail::checked_bytes(count, sizeof(T))))),
        m_size(count) {}

  /// host.size() elements holding a copy of `host`. Throws as DeviceBuffer(count).
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) {
    copy_from_host(host);
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      detail::device_free(m_data);
      m_data = std::exchange(other.m_data, nullptr);
      m_size = std::exchange(other.m_size, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { detail::device_free(m_data); }

  /// Device pointer to the first element (nullptr when empty).
  T* data() noexcept { return m_data; }
  const T* data() const noexcept { return m_data; }
  /// Number of elements.
  std::size_t size() const noexcept { return m_size; }
  /// Allocation size in bytes, size() * sizeof(T).
  std::size_t size_bytes() const noexcept { return m_size * sizeof(T); }

  /// Overwrites the buffer with `host` (host.size() == size(), else std::invalid_argument).
  void copy_from_host(std::span<const T> host) {
    detail::copy_to_device("DeviceBuffer::copy_from_host", m_data, host.data(), host.size(), m_size,
                           sizeof(T));
  }

  /// Copies the buffer into `host` (host.size() == size(), else std::invalid_argument).
  void copy_to_host(std::span<T> host) const {
    detail::copy_to_host("DeviceBuffer::copy_to_host", host.data(), m_data, host.size(), m_size,
                         sizeof(T));
  }

  /// The buffer's contents as a new host vector of size() elements.
  std::vector<T> to_host() const {
    std::vector<T> host(m_size);
    copy_to_host(host);
    return host;
  }

 private:
  T* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace scaletune::device
