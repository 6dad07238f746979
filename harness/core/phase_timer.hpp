#pragma once
// Per-iteration phase timing for one rank. The device is fenced before every clock read,
// so a phase's time covers its work, not only its launches (STYLE.md "Timing").

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace scaletune::core {

class TimelineRecorder;

/// Records, for each timed iteration, the wall time of each named phase on this rank.
/// Clock: std::chrono::steady_clock. Storage is preallocated: nothing allocates while timing.
class PhaseTimer {
 public:
  using Clock = std::chrono::steady_clock;

  /// `phase_names`: [phases]; `iterations`: timed iterations to hold;
  /// `fence`: blocks until the device has finished all queued work (Kokkos::fence on host).
  PhaseTimer(std::vector<std::string> phase_names, std::size_t iterations,
             std::function<void()> fence);

  /// Index of a phase name; throws std::out_of_range naming it when absent.
  std::size_t index(const std::string& name) const;

  /// Starts timed iteration `i` < iterations (fences, reads the clock). Marks made outside
  /// begin_iteration/end_iteration (warm-up) are ignored.
  void begin_iteration(std::size_t i);
  /// Ends the current iteration (fences, reads the clock); returns its wall time, s.
  double end_iteration();
  /// Stops the clock for the phase running since the previous mark (or since the iteration
  /// began) and charges that span to `phase`. Fences first. Calls the mark observer, if any,
  /// whether or not an iteration is timed.
  void mark(std::size_t phase);
  /// Calls `observer(phase)` at every mark from now on (a step's description charges its
  /// events to phases this way); an empty function removes it.
  void set_mark_observer(std::function<void(std::size_t)> observer) {
    m_observer = std::move(observer);
  }

  /// Reports every timed iteration's start and end and every phase span to `timeline` (which
  /// must outlive the timer) from now on; nullptr stops it.
  void set_timeline(TimelineRecorder* timeline) { m_timeline = timeline; }

  const std::vector<std::string>& phase_names() const { return m_names; }
  /// [iterations * phases], row-major, s.
  const std::vector<double>& phase_times() const { return m_phase_s; }
  /// [iterations], s: this rank's wall time of each iteration.
  const std::vector<double>& iteration_times() const { return m_iter_s; }

 private:
  std::vector<std::string> m_names;
  std::vector<double> m_phase_s;
  std::vector<double> m_iter_s;
  std::function<void()> m_fence;
  std::function<void(std::size_t)> m_observer;
  TimelineRecorder* m_timeline = nullptr;
  std::size_t m_iter = 0;
  bool m_recording = false;
  Clock::time_point m_iter_start{};
  Clock::time_point m_last{};
};

}  // namespace scaletune::core
