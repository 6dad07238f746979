#include "memory_budget.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>

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

std::string format_bytes(std::int64_t bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), unit == 0 ? "%.0f %s" : "%.3g %s", value, kUnits[unit]);
  return text.data();
}

std::int64_t host_memory_budget_bytes(int ranks_on_node) {
  const std::int64_t available = available_memory_bytes();
  if (available <= 0) return 0;  // unknown: no limit
  return static_cast<std::int64_t>(0.9 * static_cast<double>(available)) /
         std::max(1, ranks_on_node);
}

std::int64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace scaletune::core
