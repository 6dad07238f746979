#pragma once
// A communication buffer in host memory, for host backends (MPI).

#include <cstddef>
#include <memory>
#include <new>
#include <span>

#include "harness/core/communicator.hpp"

namespace scaletune::core {

/// CommBuffer in host memory, aligned to kAlignmentBytes (a cache line, and enough for every
/// vector load). Not copyable; contents start uninitialised.
class HostBuffer final : public CommBuffer {
 public:
  /// Alignment of data(), bytes.
  static constexpr std::size_t kAlignmentBytes = 64;

  /// Allocates `bytes` bytes; throws std::bad_alloc when the memory cannot be had.
  explicit HostBuffer(std::size_t bytes);

  void* data() override { return m_data.get(); }
  std::size_t bytes() const override { return m_bytes; }
  /// Copies `host` to the start; throws std::invalid_argument when it is longer than bytes().
  void upload(std::span<const std::byte> host) override;
  /// Copies the first host.size() bytes to `host`; throws std::invalid_argument when host is
  /// longer than bytes().
  void download(std::span<std::byte> host) const override;

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const {
      ::operator delete (p, std::align_val_t{kAlignmentBytes});
    }
  };
  std::unique_ptr<std::byte, AlignedDelete> m_data;
  std::size_t m_bytes;
};

}  // namespace scaletune::core
