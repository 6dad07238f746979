#include "harness/trace/trace_format.hpp"

#include <cstdio>
#include <sstream>

namespace scaletune::trace {
namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string mib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

/// Compute ops of one phase run between two collectives, summed.
struct OpRun {
  std::size_t ops = 0;
  double flops = 0.0, bytes = 0.0;
};

void flush(std::ostringstream& out, OpRun& run) {
  if (run.ops == 0) return;
  out << "      " << run.ops << " ops, " << number(run.flops) << " FLOP, " << mib(run.bytes)
      << "\n";
  run = OpRun{};
}

void format_events(std::ostringstream& out, const RankTrace& t, TraceDetail detail) {
  int phase = -1;
  OpRun run;
  for (const Event& e : t.events) {
    if (e.phase != phase) {
      flush(out, run);
      phase = e.phase;
      out << "    phase " << t.phase_names.at(static_cast<std::size_t>(phase)) << "\n";
    }
    if (e.kind == EventKind::compute && detail == TraceDetail::collectives) {
      ++run.ops;
      run.flops += e.compute.flops;
      run.bytes += e.compute.bytes;
      continue;
    }
    flush(out, run);
    if (e.kind == EventKind::compute) out << "      " << describe(e.compute) << "\n";
    if (e.kind == EventKind::collective) out << "      " << describe(e.collective) << "\n";
    if (e.kind == EventKind::wait_started) out << "      wait for the started collectives\n";
  }
  flush(out, run);
}

}  // namespace

std::string format_trace(const std::string& config, const std::string& device_kind,
                         const std::vector<RankTrace>& ranks, TraceDetail detail) {
  std::ostringstream out;
  out << "# " << config << ": " << ranks.size() << " rank" << (ranks.size() == 1 ? "" : "s") << ", "
      << device_kind << "\n";
  std::size_t printed = 0;  // the last rank printed in full
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankTrace& t = ranks[r];
    if (r > 0 && t.events == ranks[printed].events &&
        t.memory_peak_bytes == ranks[printed].memory_peak_bytes) {
      out << "  rank " << t.rank << ": as rank " << ranks[printed].rank << "\n";
      continue;
    }
    printed = r;
    const TraceTotals sum = totals(t);
    out << "  rank " << t.rank << ": " << sum.ops << " ops, " << number(sum.flops) << " FLOP, "
        << mib(sum.op_bytes) << " moved; " << sum.collectives << " collectives, "
        << mib(sum.collective_bytes) << "; memory " << mib(static_cast<double>(t.memory_peak_bytes))
        << "\n";
    format_events(out, t, detail);
  }
  return out.str();
}

}  // namespace scaletune::trace
