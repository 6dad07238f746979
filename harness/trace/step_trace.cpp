#include "harness/trace/step_trace.hpp"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace scaletune::trace {
namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string counts(const char* name, const std::vector<std::int64_t>& values) {
  std::string out = std::string(" ") + name + "=[";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i > 0 ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

std::string shape_text(const std::vector<ShapeField>& shape) {
  std::string out;
  for (const ShapeField& f : shape)
    out += (out.empty() ? "" : " ") + f.name + "=" + std::to_string(f.value);
  return out;
}

std::vector<ShapeField> parse_shape_text(const std::string& text) {
  std::vector<ShapeField> out;
  std::istringstream in(text);
  for (std::string token; in >> token;) {
    const std::size_t eq = token.find('=');
    std::int64_t value = 0;
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = eq == std::string::npos
                               ? std::from_chars(end, end, value)
                               : std::from_chars(token.data() + eq + 1, end, value);
    if (eq == 0 || eq == std::string::npos || ec != std::errc() || ptr != end ||
        eq + 1 == token.size())
      throw std::invalid_argument("shape '" + text + "': '" + token + "' is not name=integer");
    out.push_back({token.substr(0, eq), value});
  }
  return out;
}

std::vector<Collective> collectives_of(const RankTrace& trace) {
  std::vector<Collective> out;
  for (const Event& e : trace.events)
    if (e.kind == EventKind::collective) out.push_back(e.collective);
  return out;
}

std::string describe(const Collective& c) {
  std::string out = c.op + " " + c.dtype + " count=" + std::to_string(c.count) +
                    " bytes=" + std::to_string(c.bytes) +
                    " ranks=" + std::to_string(c.participants);
  if (!c.peer_counts.empty()) out += counts("counts", c.peer_counts);
  if (!c.recv_counts.empty()) out += counts("recv", c.recv_counts);
  return out + (c.started ? " started" : "");
}

std::string describe(const ComputeOp& op) {
  std::string out = op.op + " " + op.dtype;
  for (const ShapeField& f : op.shape) out += " " + f.name + "=" + std::to_string(f.value);
  return out + " flops=" + number(op.flops) + " bytes=" + number(op.bytes);
}

TraceTotals totals(const RankTrace& trace) {
  TraceTotals t;
  for (const Event& e : trace.events) {
    if (e.kind == EventKind::compute) {
      ++t.ops;
      t.flops += e.compute.flops;
      t.op_bytes += e.compute.bytes;
    } else if (e.kind == EventKind::collective) {
      ++t.collectives;
      t.collective_bytes += static_cast<double>(e.collective.bytes);
    }
  }
  return t;
}

void Recorder::begin(std::vector<std::string> phase_names) {
  m_trace = RankTrace{};
  m_trace.phase_names = std::move(phase_names);
  m_trace.events.reserve(m_offered);  // the unrecorded step before issued as many, as a rule
  m_offered = 0;
  m_unmarked = 0;
  m_last_phase = 0;
  m_recording = true;
}

void Recorder::end_phase(std::size_t phase) {
  if (!m_recording) return;
  if (phase >= m_trace.phase_names.size())
    throw std::out_of_range("trace::Recorder: phase " + std::to_string(phase) + " of " +
                            std::to_string(m_trace.phase_names.size()));
  m_last_phase = static_cast<int>(phase);
  for (; m_unmarked < m_trace.events.size(); ++m_unmarked)
    m_trace.events[m_unmarked].phase = m_last_phase;
}

void Recorder::add(ComputeOp op) {
  if (!m_recording) {
    ++m_offered;
    return;
  }
  Event e;
  e.kind = EventKind::compute;
  e.compute = std::move(op);
  m_trace.events.push_back(std::move(e));
}

void Recorder::add(Collective c) {
  if (!m_recording) {
    ++m_offered;
    return;
  }
  Event e;
  e.kind = EventKind::collective;
  e.collective = std::move(c);
  m_trace.events.push_back(std::move(e));
}

void Recorder::add_wait_started() {
  if (!m_recording) {
    ++m_offered;
    return;
  }
  Event e;
  e.kind = EventKind::wait_started;
  m_trace.events.push_back(std::move(e));
}

RankTrace Recorder::take() {
  for (; m_unmarked < m_trace.events.size(); ++m_unmarked)
    m_trace.events[m_unmarked].phase = m_last_phase;
  m_recording = false;
  RankTrace out = std::move(m_trace);
  m_trace = RankTrace{};
  return out;
}

}  // namespace scaletune::trace
