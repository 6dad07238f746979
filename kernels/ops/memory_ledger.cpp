#include "kernels/ops/memory_ledger.hpp"

#include "harness/core/memory_budget.hpp"

namespace scaletune::ops {

Tensor MemoryLedger::make(const std::string& label, DType dtype,
                          std::initializer_list<std::int64_t> shape) {
  const Tensor probe(nullptr, dtype, shape);
  const auto bytes = static_cast<std::int64_t>(probe.bytes());
  core::check_memory_budget(m_bytes + bytes, m_budget_bytes, label);
  m_buffers.push_back(m_backend.allocate(probe.bytes(), label));
  m_bytes += bytes;
  return m_buffers.back().tensor(dtype, shape);
}

void MemoryLedger::count(const std::string& label, std::int64_t bytes) {
  core::check_memory_budget(m_bytes + bytes, m_budget_bytes, label);
  m_bytes += bytes;
}

}  // namespace scaletune::ops
