#include "autotune/critical_path.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace scaletune::autotune {
namespace {

/// A rank's position in its trace and its streams' clocks.
struct RankState {
  std::size_t next = 0;        ///< next event
  double compute = 0.0;        ///< when the compute stream is free
  double communication = 0.0;  ///< when the communication stream is free
};

double checked(double t, const std::string& what) {
  if (!std::isfinite(t) || t < 0.0)
    throw std::invalid_argument("compose_step: the time of " + what + " is " + std::to_string(t) +
                                "; expected a finite number of seconds >= 0");
  return t;
}

class Composer {
 public:
  /// Composes `ranks`, each collective of which has `participants` participants (ranks.size(),
  /// or more when each trace stands for alike ranks).
  Composer(std::span<const trace::RankTrace> ranks, int participants, const OpTime& op_time,
           const CollectiveTime& collective_time)
      : m_traces(ranks),
        m_participants(participants),
        m_op_time(op_time),
        m_collective_time(collective_time),
        m_state(ranks.size()),
        m_spans(ranks.size()) {
    m_out.ranks.resize(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r)
      m_out.ranks[r].phase_s.assign(ranks[r].phase_names.size(), 0.0);
  }

  ComposedStep run() {
    for (;;) {
      std::size_t arrived = 0;
      for (std::size_t r = 0; r < m_traces.size(); ++r) arrived += advance(r) ? 1 : 0;
      if (arrived == 0) break;
      if (arrived != m_traces.size())
        throw std::invalid_argument(
            "compose_step: the ranks issue different numbers of collectives");
      resolve_collective();
    }
    finish();
    return std::move(m_out);
  }

 private:
  /// Runs rank r's compute ops and waits up to its next collective; true when it reached one.
  bool advance(std::size_t r) {
    const std::vector<trace::Event>& events = m_traces[r].events;
    RankState& s = m_state[r];
    for (; s.next < events.size(); ++s.next) {
      const trace::Event& e = events[s.next];
      if (e.kind == trace::EventKind::collective) return true;
      if (e.kind == trace::EventKind::wait_started) {
        const double until = std::max(s.compute, s.communication);
        m_out.ranks[r].exposed_communication_s += until - s.compute;
        s.compute = until;
        continue;
      }
      const double t = checked(m_op_time(e.compute), e.compute.op);
      add_span(r, false, e, s.compute, s.compute + t);
      m_out.ranks[r].compute_s += t;
      m_out.ranks[r].phase_s.at(static_cast<std::size_t>(e.phase)) += t;
      s.compute += t;
    }
    return false;
  }

  /// The collective every rank has reached: starts when all have issued it and their
  /// communication streams are free.
  void resolve_collective() {
    const trace::Event& first = m_traces[0].events[m_state[0].next];
    double start = 0.0;
    for (std::size_t r = 0; r < m_traces.size(); ++r) {
      const trace::Event& e = m_traces[r].events[m_state[r].next];
      if (e.collective.op != first.collective.op || e.collective.participants != m_participants)
        throw std::invalid_argument("compose_step: rank " + std::to_string(r) + " issues " +
                                    trace::describe(e.collective) + " where rank 0 issues " +
                                    trace::describe(first.collective));
      start = std::max({start, m_state[r].compute, m_state[r].communication});
    }
    for (std::size_t r = 0; r < m_traces.size(); ++r) {
      const trace::Event& e = m_traces[r].events[m_state[r].next];
      RankState& s = m_state[r];
      const double end = start + checked(m_collective_time(e.collective), e.collective.op);
      add_span(r, true, e, start, end);
      s.communication = end;
      if (!e.collective.started) {
        m_out.ranks[r].waiting_s += start - s.compute;
        m_out.ranks[r].exposed_communication_s += end - start;
        s.compute = end;
      }
      ++s.next;
    }
  }

  void add_span(std::size_t r, bool communication, const trace::Event& e, double begin,
                double end) {
    trace::TimelineSpan span;
    span.rank = static_cast<int>(r);
    span.kind = communication ? trace::SpanKind::collective : trace::SpanKind::op;
    span.phase = m_traces[r].phase_names.at(static_cast<std::size_t>(e.phase));
    span.name = communication ? e.collective.op : e.compute.op;
    span.begin_s = begin;
    span.end_s = end;
    span.bytes = communication ? e.collective.bytes : 0;
    m_spans[r].push_back(std::move(span));
  }

  void finish() {
    for (std::size_t r = 0; r < m_traces.size(); ++r) {
      const double end = std::max(m_state[r].compute, m_state[r].communication);
      m_out.ranks[r].end_s = end;
      if (end > m_out.step_time_s) {
        m_out.step_time_s = end;
        m_out.critical_rank = static_cast<int>(r);
      }
    }
    std::size_t spans = 0;
    for (const auto& rank_spans : m_spans) spans += rank_spans.size();
    m_out.spans.reserve(spans);
    for (auto& rank_spans : m_spans)
      std::move(rank_spans.begin(), rank_spans.end(), std::back_inserter(m_out.spans));
  }

  std::span<const trace::RankTrace> m_traces;
  int m_participants;
  const OpTime& m_op_time;
  const CollectiveTime& m_collective_time;
  std::vector<RankState> m_state;
  std::vector<std::vector<trace::TimelineSpan>> m_spans;  ///< [ranks]: in issue order
  ComposedStep m_out;
};

}  // namespace

ComposedStep compose_step(const std::vector<trace::RankTrace>& ranks, const OpTime& op_time,
                          const CollectiveTime& collective_time) {
  if (ranks.empty()) throw std::invalid_argument("compose_step: no ranks");
  return Composer(ranks, static_cast<int>(ranks.size()), op_time, collective_time).run();
}

ComposedStep compose_alike_step(const trace::RankTrace& rank, int ranks, const OpTime& op_time,
                                const CollectiveTime& collective_time) {
  if (ranks < 1)
    throw std::invalid_argument("compose_alike_step: " + std::to_string(ranks) +
                                " ranks; expected >= 1");
  ComposedStep step =
      Composer(std::span<const trace::RankTrace>(&rank, 1), ranks, op_time, collective_time).run();
  step.ranks.resize(static_cast<std::size_t>(ranks), step.ranks.front());
  return step;
}

}  // namespace scaletune::autotune
