#pragma once
// Memory a backend allocated: owned, freed by the backend's release function when the Buffer
// goes. Ops never own memory; they take Tensor views of Buffers.

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/ops/tensor.hpp"

namespace scaletune::ops {

/// `bytes()` bytes at `data()` in one backend's memory space (data() may be null for a backend
/// that holds no memory). Move-only; the destructor calls the release function (never throws).
class Buffer {
 public:
  using Release = std::function<void(void*)>;

  /// No memory.
  Buffer() = default;
  /// Takes ownership of `bytes` bytes at `data`, given back with `release(data)`.
  Buffer(void* data, std::size_t bytes, Release release)
      : m_data(data), m_bytes(bytes), m_release(std::move(release)) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer(std::move(other)).swap(*this);
    return *this;
  }
  ~Buffer() {
    if (m_release) m_release(m_data);
  }

  void* data() const { return m_data; }
  std::size_t bytes() const { return m_bytes; }

  /// A view of the buffer's start as `shape` elements of `dtype`. Throws std::out_of_range
  /// when that needs more than bytes().
  Tensor tensor(DType dtype, std::initializer_list<std::int64_t> shape) const {
    Tensor t(m_data, dtype, shape);
    if (t.bytes() > m_bytes)
      throw std::out_of_range("ops::Buffer::tensor: " + t.describe() + " needs " +
                              std::to_string(t.bytes()) + " bytes, the buffer has " +
                              std::to_string(m_bytes));
    return t;
  }

 private:
  void swap(Buffer& other) noexcept {
    std::swap(m_data, other.m_data);
    std::swap(m_bytes, other.m_bytes);
    std::swap(m_release, other.m_release);
  }

  void* m_data = nullptr;
  std::size_t m_bytes = 0;
  Release m_release;
};

}  // namespace scaletune::ops
