#include "kernels/transformer/compute_clock.hpp"

#include <algorithm>
#include <utility>

namespace scaletune::kernels {

ComputeClock::ComputeClock(core::PhaseTimer& timer, std::vector<std::size_t> compute)
    : m_timer(timer), m_compute(std::move(compute)), m_last(Clock::now()) {
  m_timer.set_mark_observer([this](std::size_t phase) { on_mark(phase); });
}

ComputeClock::~ComputeClock() {
  m_timer.set_mark_observer({});
}

void ComputeClock::on_mark(std::size_t phase) {
  const Clock::time_point now = Clock::now();
  if (std::ranges::find(m_compute, phase) != m_compute.end())
    m_busy_s += std::chrono::duration<double>(now - m_last).count();
  m_last = now;
}

}  // namespace scaletune::kernels
