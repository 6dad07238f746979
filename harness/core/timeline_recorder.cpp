#include "harness/core/timeline_recorder.hpp"

#include <stdexcept>
#include <utility>

namespace scaletune::core {

TimelineRecorder::TimelineRecorder(std::unique_ptr<CommTimer> timer, MemorySpace space)
    : m_timer(std::move(timer)), m_started_end_on_return(space == MemorySpace::device) {}

int TimelineRecorder::stamp() {
  m_timer->mark();
  return m_stamps++;
}

void TimelineRecorder::begin_iteration(int iteration) {
  m_iteration = iteration;
  m_pending.clear();
  m_open.clear();
  m_unphased = 0;
  m_stamps = 0;
  m_recording = true;
  stamp();
}

void TimelineRecorder::phase(const std::string& name, double begin_s, double end_s) {
  if (!m_recording) return;
  m_last_phase = name;
  for (; m_unphased < m_pending.size(); ++m_unphased)
    m_spans[m_pending[m_unphased].span].phase = name;
  trace::TimelineSpan span;
  span.iteration = m_iteration;
  span.kind = trace::SpanKind::phase;
  span.phase = name;
  span.name = name;
  span.begin_s = begin_s;
  span.end_s = end_s;
  m_spans.push_back(std::move(span));
}

void TimelineRecorder::add(trace::Collective c) {
  trace::TimelineSpan span;
  span.iteration = m_iteration;
  span.kind = trace::SpanKind::collective;
  span.name = std::move(c.op);
  span.bytes = c.bytes;
  m_pending.push_back({m_spans.size(), stamp(), -1, c.started});
  m_spans.push_back(std::move(span));
  m_wait_announced = false;
}

void TimelineRecorder::add_wait_started() {
  m_wait_announced = true;
}

void TimelineRecorder::issued() {
  const int at = stamp();
  if (m_wait_announced) {
    close_started(at);
    return;
  }
  Pending& last = m_pending.back();
  if (last.started && !m_started_end_on_return)
    m_open.push_back(m_pending.size() - 1);
  else
    last.end_stamp = at;
}

void TimelineRecorder::progressed() {
  if (!m_open.empty()) close_started(stamp());
}

void TimelineRecorder::close_started(int at) {
  for (const std::size_t i : m_open) m_pending[i].end_stamp = at;
  m_open.clear();
}

void TimelineRecorder::end_iteration() {
  if (!m_recording) return;
  m_recording = false;
  const int last = stamp();
  close_started(last);
  const std::vector<double> intervals = m_timer->intervals();
  if (intervals.size() + 1 != static_cast<std::size_t>(m_stamps))
    throw std::logic_error("TimelineRecorder: the communicator's timer lost stamps");
  std::vector<double> at(intervals.size() + 1, 0.0);
  for (std::size_t i = 0; i < intervals.size(); ++i) at[i + 1] = at[i] + intervals[i];
  for (std::size_t i = 0; i < m_pending.size(); ++i) {
    const Pending& p = m_pending[i];
    trace::TimelineSpan& span = m_spans[p.span];
    span.begin_s = at[static_cast<std::size_t>(p.begin_stamp)];
    span.end_s = at[static_cast<std::size_t>(p.end_stamp < 0 ? last : p.end_stamp)];
    if (i >= m_unphased) span.phase = m_last_phase;
  }
}

}  // namespace scaletune::core
