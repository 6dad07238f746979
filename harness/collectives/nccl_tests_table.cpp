#include "nccl_tests_table.hpp"

#include <cstdio>

namespace scaletune::collectives {

namespace {

template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string time_text(double time_us) {
  const char* fmt = time_us >= 10000.0 ? "%7.0f" : time_us >= 100.0 ? "%7.1f" : "%7.2f";
  return format(fmt, time_us);
}

std::string figures(const std::optional<PlacementFigures>& f) {
  if (!f) return format("  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
  const std::string wrong =
      f->wrong < 0 ? "N/A" : format("%5lld", static_cast<long long>(f->wrong));
  return format("  %7s  %6.2f  %6.2f  %5s", time_text(f->time_us).c_str(), f->algbw_gbps,
                f->busbw_gbps, wrong.c_str());
}

std::string column_headers() {
  return format(
             "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
             "in-place          \n",
             "", "", "", "", "") +
         format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size",
                "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
                "algbw", "busbw", "#wrong") +
         format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)",
                "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                "(GB/s)", "");
}

}  // namespace

std::string test_start(const TestPreamble& p) {
  std::string s = "# Collective test starting: " + p.op + "_perf\n";
  s += format(
      "# backend %s minBytes %lld maxBytes %lld step: %g(factor) warmup iters: %d "
      "iters: %d validation: 1\n",
      p.backend.c_str(), static_cast<long long>(p.min_bytes), static_cast<long long>(p.max_bytes),
      p.step_factor, p.warmup, p.iterations);
  s += "#\n# Using devices\n";
  for (std::size_t r = 0; r < p.rank_lines.size(); ++r)
    s += format("#  Rank %2zu %s\n", r, p.rank_lines[r].c_str());
  return s + "#\n" + column_headers();
}

std::string table_row(const TableRow& row) {
  const std::string type(row.type);
  const std::string redop(row.redop);
  return format("%12lld  %12zu  %8s  %6s  %6i", static_cast<long long>(row.bytes), row.count,
                type.c_str(), redop.c_str(), row.root) +
         figures(row.out_of_place) + figures(row.in_place) + "\n";
}

std::string test_end(const std::string& op, std::int64_t wrong, double avg_busbw_gbps) {
  return format("# Wrong elements       : %lld %s\n", static_cast<long long>(wrong),
                wrong == 0 ? "OK" : "FAILED") +
         format("# Avg bus bandwidth    : %g \n", avg_busbw_gbps) +
         "#\n# Collective test concluded: " + op + "_perf\n#\n";
}

}  // namespace scaletune::collectives
