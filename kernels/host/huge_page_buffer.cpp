#include "huge_page_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace scaletune::kernels {

namespace {

/// `bytes` rounded up to a multiple of HugePageBuffer::kAlignmentBytes.
std::size_t round_up_to_alignment(std::int64_t bytes) {
  const std::int64_t align = HugePageBuffer::kAlignmentBytes;
  return static_cast<std::size_t>((bytes + align - 1) / align * align);
}

/// Maps `length` bytes (a multiple of the alignment) at a 2 MiB boundary: maps one alignment
/// more than asked and unmaps the slack before and after the aligned range. Throws
/// std::bad_alloc when mmap fails.
void* map_aligned(std::size_t length) {
  const auto align = static_cast<std::size_t>(HugePageBuffer::kAlignmentBytes);
  const std::size_t padded = length + align;
  void* raw = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + align - 1) / align * align;
  const std::size_t head = aligned - start;
  if (head > 0) munmap(raw, head);
  munmap(reinterpret_cast<void*>(aligned + length), padded - head - length);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

HugePageBuffer::HugePageBuffer(std::int64_t bytes) : m_bytes(bytes) {
  if (bytes < 0)
    throw std::invalid_argument("HugePageBuffer: bytes = " + std::to_string(bytes) +
                                " must be >= 0");
  if (bytes == 0) return;
  m_mapped_bytes = round_up_to_alignment(bytes);
  m_data = map_aligned(m_mapped_bytes);
  m_huge_pages_advised = madvise(m_data, m_mapped_bytes, MADV_HUGEPAGE) == 0;
}

std::int64_t HugePageBuffer::mapped_bytes_for(std::int64_t bytes) {
  return static_cast<std::int64_t>(round_up_to_alignment(bytes));
}

HugePageBuffer::~HugePageBuffer() {
  if (m_data != nullptr) munmap(m_data, m_mapped_bytes);
}

HugePageBuffer::HugePageBuffer(HugePageBuffer&& other) noexcept {
  swap(other);
}

HugePageBuffer& HugePageBuffer::operator=(HugePageBuffer&& other) noexcept {
  HugePageBuffer taken(std::move(other));
  swap(taken);  // this buffer's old mapping is released with `taken`
  return *this;
}

void HugePageBuffer::swap(HugePageBuffer& other) noexcept {
  std::swap(m_data, other.m_data);
  std::swap(m_bytes, other.m_bytes);
  std::swap(m_mapped_bytes, other.m_mapped_bytes);
  std::swap(m_huge_pages_advised, other.m_huge_pages_advised);
}

Tensor2 table_view(HugePageBuffer& buffer, std::size_t rows, std::size_t dim) {
  const std::size_t needed_bytes = rows * dim * sizeof(float);
  if (dim != 0 && rows > static_cast<std::size_t>(buffer.bytes()) / (dim * sizeof(float)))
    throw std::invalid_argument("table_view: a [" + std::to_string(rows) + ", " +
                                std::to_string(dim) + "] fp32 table needs " +
                                std::to_string(needed_bytes) + " bytes, the buffer holds " +
                                std::to_string(buffer.bytes()));
  return Tensor2(buffer.floats(), rows, dim);
}

}  // namespace scaletune::kernels
