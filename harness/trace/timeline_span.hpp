#pragma once
// One span of a rank's timeline: a phase of a timed iteration or a collective in it, measured
// by the runner (/configs/<id>/timeline) or predicted (/predictions/timeline/<id>).

#include <cstdint>
#include <string>
#include <string_view>

namespace scaletune::trace {

/// What a span covers: a phase of the step or one compute op (the compute track of a timeline;
/// measured timelines hold phases, predicted ones ops) or a collective (the communication track).
enum class SpanKind { phase, op, collective };

/// "phase", "op" or "collective", as stored in the kind field.
std::string_view span_kind_text(SpanKind kind);
/// The inverse of span_kind_text. Throws std::invalid_argument quoting the text otherwise.
SpanKind parse_span_kind(std::string_view text);

/// One span on one rank.
struct TimelineSpan {
  int rank = 0;       ///< rank of the configuration
  int iteration = 0;  ///< timed iteration, index into the configuration's step_time
  SpanKind kind = SpanKind::phase;
  std::string phase;       ///< the phase the span is charged to (a phase span: its own)
  std::string name;        ///< the phase name, the op kind ("gemm", ...) or the collective's op
  double begin_s = 0.0;    ///< from the start of the iteration on this rank, s
  double end_s = 0.0;      ///< >= begin_s, s
  std::int64_t bytes = 0;  ///< a collective's message size (trace::Collective::bytes); 0 else
  bool operator==(const TimelineSpan&) const = default;
};

}  // namespace scaletune::trace
