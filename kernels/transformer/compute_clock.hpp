#pragma once
// How long a rank computes during one step, apart from the time it waits in collectives: what
// the plan of a profiled split predicted (transformer_plan.hpp corrected_profiles).

#include <chrono>
#include <cstddef>
#include <vector>

#include "harness/core/phase_timer.hpp"

namespace scaletune::kernels {

/// Seconds charged to the phases in `compute` while it lives: it is `timer`'s mark observer
/// (which it removes at destruction; there must be none before), and charges the time since the
/// previous mark, or since its construction, to the phase each mark ends. The timer fences the
/// device before each mark, so the time is the work's, not its launches', and it counts in
/// warm-up steps too (marks outside timed iterations still reach the observer).
class ComputeClock {
 public:
  ComputeClock(core::PhaseTimer& timer, std::vector<std::size_t> compute);
  ~ComputeClock();
  ComputeClock(const ComputeClock&) = delete;
  ComputeClock& operator=(const ComputeClock&) = delete;

  /// Seconds charged so far to the compute phases.
  double busy_s() const { return m_busy_s; }

 private:
  using Clock = std::chrono::steady_clock;
  void on_mark(std::size_t phase);

  core::PhaseTimer& m_timer;
  std::vector<std::size_t> m_compute;
  Clock::time_point m_last;
  double m_busy_s = 0.0;
};

}  // namespace scaletune::kernels
