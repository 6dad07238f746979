#pragma once
// The untyped calls behind DeviceBuffer<T> (implemented in device_buffer.cpp), so the template
// needs no CUDA header.

#include <cstddef>

namespace scaletune::device::detail {

/// cudaMalloc of `bytes` on the current device; nullptr for 0 bytes (no device touched).
/// Throws CudaError "no CUDA device" without a device, DeviceOutOfMemory when the device is
/// full, CudaError on any other failure.
void* device_malloc(std::size_t bytes);

/// cudaFree; never throws (cleanup code), nullptr is a no-op.
void device_free(void* ptr) noexcept;

/// cudaMemcpy of host_count * element_bytes bytes from host `src` to device `dst`, after
/// checking host_count == device_count (the buffer's elements); std::invalid_argument naming
/// `op` and both counts otherwise, CudaError when the copy fails.
void copy_to_device(const char* op, void* dst, const void* src, std::size_t host_count,
                    std::size_t device_count, std::size_t element_bytes);

/// As copy_to_device, from device `src` to host `dst`.
void copy_to_host(const char* op, void* dst, const void* src, std::size_t host_count,
                  std::size_t device_count, std::size_t element_bytes);

/// count * element_bytes, or throws std::length_error naming both when that overflows size_t.
std::size_t checked_bytes(std::size_t count, std::size_t element_bytes);

}  // namespace scaletune::device::detail
