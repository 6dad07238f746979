#pragma once
// A rank's memory budget: workloads refuse to allocate past it, so an oversized configuration
// is recorded as oom instead of driving the node into swap or the kernel's OOM killer.

#include <cstdint>
#include <new>
#include <string>

namespace scaletune::core {

/// Allocating would exceed the rank's memory budget. A std::bad_alloc, so the sweep records
/// status oom; what() says how much was needed and what the budget was.
class MemoryBudgetExceeded : public std::bad_alloc {
 public:
  explicit MemoryBudgetExceeded(std::string message) : m_message(std::move(message)) {}
  const char* what() const noexcept override { return m_message.c_str(); }

 private:
  std::string m_message;
};

/// Throws MemoryBudgetExceeded naming `what` when `needed_bytes` > `budget_bytes` > 0.
void check_memory_budget(std::int64_t needed_bytes, std::int64_t budget_bytes,
                         const std::string& what);

/// `bytes` in binary units with three significant digits: "512 B", "1.5 KiB", "89.5 GiB".
std::string format_bytes(std::int64_t bytes);

/// Memory the kernel could give without swapping (MemAvailable of /proc/meminfo: free memory
/// plus reclaimable page cache), bytes; 0 when unknown.
std::int64_t available_memory_bytes();

/// Host memory one of `ranks_on_node` ranks may use: 90% of available_memory_bytes() shared
/// evenly, bytes; 0 (no limit) when the available memory is unknown.
std::int64_t host_memory_budget_bytes(int ranks_on_node);

}  // namespace scaletune::core
