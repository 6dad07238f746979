#include "host_buffer.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace scaletune::core {

namespace {
void check_fits(const char* what, std::size_t host_bytes, std::size_t buffer_bytes) {
  if (host_bytes <= buffer_bytes) return;
  throw std::invalid_argument(std::string("HostBuffer::") + what + ": " +
                              std::to_string(host_bytes) + " bytes do not fit a buffer of " +
                              std::to_string(buffer_bytes) + " bytes");
}
}  // namespace

HostBuffer::HostBuffer(std::size_t bytes)
    : m_data(static_cast<std::byte*>(::operator new (bytes, std::align_val_t{kAlignmentBytes}))),
      m_bytes(bytes) {}

void HostBuffer::upload(std::span<const std::byte> host) {
  check_fits("upload", host.size(), m_bytes);
  if (!host.empty()) std::memcpy(m_data.get(), host.data(), host.size());
}

void HostBuffer::download(std::span<std::byte> host) const {
  check_fits("download", host.size(), m_bytes);
  if (!host.empty()) std::memcpy(host.data(), m_data.get(), host.size());
}

}  // namespace scaletune::core
