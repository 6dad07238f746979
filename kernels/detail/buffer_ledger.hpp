#pragma once
// Allocates a model's activation and workspace buffers and keeps the sum of their bytes, so the
// workload reports the memory it really holds.

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// Makes managed host views (zero-filled) and adds up their bytes.
class BufferLedger {
 public:
  /// A new view of `View` type, shape `extents`, named `label`. Throws std::bad_alloc when
  /// memory runs out.
  template <class View, class... Extents>
  View make(const std::string& label, Extents... extents) {
    View view(label, static_cast<std::size_t>(extents)...);
    m_bytes += static_cast<std::int64_t>(view.span() * sizeof(typename View::value_type));
    return view;
  }

  /// Sum of the bytes of every view made, bytes.
  std::int64_t bytes() const { return m_bytes; }

 private:
  std::int64_t m_bytes = 0;
};

}  // namespace scaletune::kernels::detail
