#pragma once
// Host memory for large embedding tables: 2 MiB aligned and advised for transparent huge pages,
// so a random row lookup costs a cache miss but (with huge pages) rarely a TLB miss as well.

#include <cstddef>
#include <cstdint>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Owns `bytes` of zero-filled host memory from an anonymous private mapping, aligned to
/// kAlignmentBytes (2 MiB, the x86-64 huge page) and advised with madvise(MADV_HUGEPAGE). The
/// advice is best effort: a kernel without transparent huge pages refuses it, and the buffer
/// then works on ordinary pages (see huge_pages_advised()). Pages are faulted in on first touch,
/// so the huge pages come from the first write or read, not from the constructor. Move-only;
/// the mapping is released in the destructor.
class HugePageBuffer {
 public:
  /// The alignment of floats(): 2 MiB.
  static constexpr std::int64_t kAlignmentBytes = std::int64_t{1} << 21;

  /// Maps `bytes` (>= 0; 0 gives an empty buffer with floats() == nullptr). Throws
  /// std::invalid_argument for a negative size (naming it) and std::bad_alloc when the mapping
  /// fails.
  explicit HugePageBuffer(std::int64_t bytes);
  ~HugePageBuffer();
  HugePageBuffer(HugePageBuffer&& other) noexcept;
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept;
  HugePageBuffer(const HugePageBuffer&) = delete;
  HugePageBuffer& operator=(const HugePageBuffer&) = delete;

  /// Size requested at construction, bytes (0 after being moved from).
  std::int64_t bytes() const { return m_bytes; }
  /// Length of the mapping: bytes() rounded up to kAlignmentBytes (0 when empty), bytes.
  std::int64_t mapped_bytes() const { return static_cast<std::int64_t>(m_mapped_bytes); }
  /// The mapped_bytes() a buffer of `bytes` (>= 0) bytes takes, without making one.
  static std::int64_t mapped_bytes_for(std::int64_t bytes);
  /// Start of the memory as floats (nullptr when empty or moved from).
  float* floats() { return static_cast<float*>(m_data); }
  /// Whether madvise(MADV_HUGEPAGE) accepted the range.
  bool huge_pages_advised() const { return m_huge_pages_advised; }

 private:
  /// Exchanges the two buffers' mappings (the moves are built on it).
  void swap(HugePageBuffer& other) noexcept;

  void* m_data = nullptr;
  std::int64_t m_bytes = 0;
  std::size_t m_mapped_bytes = 0;  ///< bytes rounded up to kAlignmentBytes: the mapping's length
  bool m_huge_pages_advised = false;
};

/// Unmanaged [rows, dim] LayoutRight view over the start of `buffer` (an embedding table); the
/// buffer must outlive the view. Throws std::invalid_argument when rows * dim floats do not fit
/// in buffer.bytes() (naming both sizes).
Tensor2 table_view(HugePageBuffer& buffer, std::size_t rows, std::size_t dim);

}  // namespace scaletune::kernels
