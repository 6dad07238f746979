#include "phase_timer.hpp"

#include <algorithm>
#include <stdexcept>

#include "harness/core/timeline_recorder.hpp"

namespace scaletune::core {

namespace {
double seconds(PhaseTimer::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
}  // namespace

PhaseTimer::PhaseTimer(std::vector<std::string> phase_names, std::size_t iterations,
                       std::function<void()> fence)
    : m_names(std::move(phase_names)),
      m_phase_s(iterations * m_names.size(), 0.0),
      m_iter_s(iterations, 0.0),
      m_fence(std::move(fence)) {}

std::size_t PhaseTimer::index(const std::string& name) const {
  const auto it = std::find(m_names.begin(), m_names.end(), name);
  if (it == m_names.end()) throw std::out_of_range("PhaseTimer: no phase named '" + name + "'");
  return static_cast<std::size_t>(it - m_names.begin());
}

void PhaseTimer::begin_iteration(std::size_t i) {
  if (i >= m_iter_s.size()) throw std::out_of_range("PhaseTimer: iteration beyond the capacity");
  m_fence();
  m_iter = i;
  m_recording = true;
  m_iter_start = Clock::now();
  m_last = m_iter_start;
  if (m_timeline != nullptr) m_timeline->begin_iteration(static_cast<int>(i));
}

double PhaseTimer::end_iteration() {
  m_fence();
  const auto now = Clock::now();
  m_recording = false;
  m_iter_s[m_iter] = seconds(now - m_iter_start);
  if (m_timeline != nullptr) m_timeline->end_iteration();
  return m_iter_s[m_iter];
}

void PhaseTimer::mark(std::size_t phase) {
  if (phase >= m_names.size())
    throw std::out_of_range("PhaseTimer: phase " + std::to_string(phase) + " of " +
                            std::to_string(m_names.size()));
  if (m_observer) m_observer(phase);
  if (!m_recording) return;
  m_fence();
  const auto now = Clock::now();
  m_phase_s[m_iter * m_names.size() + phase] += seconds(now - m_last);
  if (m_timeline != nullptr)
    m_timeline->phase(m_names[phase], seconds(m_last - m_iter_start), seconds(now - m_iter_start));
  m_last = now;
}

}  // namespace scaletune::core
