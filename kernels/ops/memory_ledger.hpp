#pragma once
// Allocates a model's buffers through its backend and keeps the sum of their bytes within the
// rank's budget, so a workload reports the memory it really holds and refuses a configuration
// that does not fit before it allocates.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/ops/backend.hpp"

namespace scaletune::ops {

/// Owns every buffer it made (freed with the ledger) and counts their bytes.
class MemoryLedger {
 public:
  /// `budget_bytes`: the most everything made and counted may take (0: no limit), bytes.
  /// The backend must outlive the ledger.
  explicit MemoryLedger(Backend& backend, std::int64_t budget_bytes = 0)
      : m_backend(backend), m_budget_bytes(budget_bytes) {}

  /// A new zero-filled tensor of `shape` elements of `dtype`, named `label`. Throws
  /// core::MemoryBudgetExceeded (a std::bad_alloc) before allocating past the budget, and
  /// std::bad_alloc when the backend's memory runs out.
  Tensor make(const std::string& label, DType dtype, std::initializer_list<std::int64_t> shape);

  /// Counts `bytes` allocated elsewhere (an op's state, the backend's workspace) under `label`,
  /// after checking the budget as make() does.
  void count(const std::string& label, std::int64_t bytes);

  /// Sum of the bytes made and counted.
  std::int64_t bytes() const { return m_bytes; }
  /// The budget, bytes (0: none).
  std::int64_t budget_bytes() const { return m_budget_bytes; }
  Backend& backend() const { return m_backend; }

 private:
  Backend& m_backend;
  std::int64_t m_budget_bytes;
  std::int64_t m_bytes = 0;
  std::vector<Buffer> m_buffers;
};

}  // namespace scaletune::ops
