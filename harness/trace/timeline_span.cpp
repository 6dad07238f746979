#include "harness/trace/timeline_span.hpp"

#include <stdexcept>
#include <string>

namespace scaletune::trace {

std::string_view span_kind_text(SpanKind kind) {
  switch (kind) {
    case SpanKind::phase:
      return "phase";
    case SpanKind::op:
      return "op";
    case SpanKind::collective:
      return "collective";
  }
  return "collective";
}

SpanKind parse_span_kind(std::string_view text) {
  if (text == "phase") return SpanKind::phase;
  if (text == "op") return SpanKind::op;
  if (text == "collective") return SpanKind::collective;
  throw std::invalid_argument("span kind '" + std::string(text) +
                              "': expected 'phase', 'op' or 'collective'");
}

}  // namespace scaletune::trace
