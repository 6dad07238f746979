#pragma once
// Allocates a model's activation and workspace buffers and keeps the sum of their bytes, so the
// workload reports the memory it really holds.

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/core/memory_budget.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// Makes managed host views (zero-filled) and adds up their bytes, within a budget.
class BufferLedger {
 public:
  /// `budget_bytes`: the most all views together may take (0: no limit), bytes.
  explicit BufferLedger(std::int64_t budget_bytes = 0) : m_budget_bytes(budget_bytes) {}

  /// A new view of `View` type, shape `extents`, named `label`. Throws
  /// core::MemoryBudgetExceeded (a std::bad_alloc) before allocating past the budget, and
  /// std::bad_alloc when memory runs out.
  template <class View, class... Extents>
  View make(const std::string& label, Extents... extents) {
    const std::size_t count = (std::size_t{1} * ... * static_cast<std::size_t>(extents));
    const auto bytes = static_cast<std::int64_t>(count * sizeof(typename View::value_type));
    core::check_memory_budget(m_bytes + bytes, m_budget_bytes, label);
    View view(label, static_cast<std::size_t>(extents)...);
    m_bytes += bytes;
    return view;
  }

  /// Counts `bytes` allocated elsewhere (e.g. a HugePageBuffer) under `label`, after checking
  /// the budget as make() does; call it before allocating them.
  void count(const std::string& label, std::int64_t bytes) {
    core::check_memory_budget(m_bytes + bytes, m_budget_bytes, label);
    m_bytes += bytes;
  }

  /// Sum of the bytes of every view made and counted, bytes.
  std::int64_t bytes() const { return m_bytes; }

 private:
  std::int64_t m_budget_bytes;
  std::int64_t m_bytes = 0;
};

}  // namespace scaletune::kernels::detail
