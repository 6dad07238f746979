#pragma once
// Timelines in the Chrome trace format ("Trace Event Format", Google, JSON object form with
// "traceEvents"), which Perfetto (ui.perfetto.dev) and chrome://tracing open: one process per
// configuration and rank, a compute thread (phases or ops) and a communication thread
// (collectives) in each.

#include <string>
#include <vector>

#include "harness/trace/timeline_span.hpp"

namespace scaletune::trace {

/// One configuration's timeline to export, measured or predicted.
struct TimelineExport {
  std::string label;  ///< names its processes: "<label> rank <r>"
  std::vector<TimelineSpan> spans;
  /// [iterations]: where each iteration starts on the exported time axis, s (a span's times are
  /// relative to its iteration's start); an iteration past the end starts at 0
  std::vector<double> iteration_start_s;
};

/// The JSON text of `timelines`: complete events ("ph": "X", "ts" and "dur" in microseconds,
/// "cat" the span kind, "args" iteration, phase and, for collectives, bytes) and metadata events
/// naming and ordering the processes and threads. Process ids count from 1 over timelines then
/// ranks; thread 1 is "compute", 2 "communication".
std::string chrome_trace_json(const std::vector<TimelineExport>& timelines);

}  // namespace scaletune::trace
