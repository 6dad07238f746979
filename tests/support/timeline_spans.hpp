#pragma once
// Timeline spans for tests of the timeline's storage and export.

#include <cstdint>
#include <string>
#include <utility>

#include "harness/trace/timeline_span.hpp"

namespace scaletune::testing_support {

/// A span of `rank` and `iteration`: a phase charged to itself, anything else to "bwd".
inline trace::TimelineSpan timeline_span(int rank, int iteration, trace::SpanKind kind,
                                         std::string name, double begin_s, double end_s,
                                         std::int64_t bytes = 0) {
  trace::TimelineSpan s;
  s.rank = rank;
  s.iteration = iteration;
  s.kind = kind;
  s.phase = kind == trace::SpanKind::phase ? name : "bwd";
  s.name = std::move(name);
  s.begin_s = begin_s;
  s.end_s = end_s;
  s.bytes = bytes;
  return s;
}

}  // namespace scaletune::testing_support
