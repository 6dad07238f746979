#include "memory_budget.hpp"

#include <unistd.h>

#include <algorithm>

namespace scaletune::core {

namespace {
std::string gigabytes(std::int64_t bytes) {
  return std::to_string(static_cast<double>(bytes) / 1e9).substr(0, 6) + " GB";
}
}  // namespace

void check_memory_budget(std::int64_t needed_bytes, std::int64_t budget_bytes,
                         const std::string& what) {
  if (budget_bytes <= 0 || needed_bytes <= budget_bytes) return;
  throw MemoryBudgetExceeded("needs more than " + gigabytes(needed_bytes) + " (at " + what +
                             "), over this rank's memory budget of " + gigabytes(budget_bytes));
}

std::int64_t host_memory_budget_bytes(int ranks_on_node) {
  const std::int64_t available =
      static_cast<std::int64_t>(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  return static_cast<std::int64_t>(0.9 * static_cast<double>(available)) /
         std::max(1, ranks_on_node);
}

}  // namespace scaletune::core
