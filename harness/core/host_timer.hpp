#pragma once
// Timing of host communicators' work: their operations are blocking, so the clock at a mark
// already follows everything issued before it.

#include <chrono>
#include <vector>

#include "harness/core/communicator.hpp"

namespace scaletune::core {

/// CommTimer over std::chrono::steady_clock, for communicators whose operations have completed
/// when they return (MPI).
class HostTimer final : public CommTimer {
 public:
  using Clock = std::chrono::steady_clock;

  /// Reads the clock.
  void mark() override { m_marks.push_back(Clock::now()); }
  /// The n - 1 intervals between the n marks so far, s (empty for fewer than two marks);
  /// forgets the marks.
  std::vector<double> intervals() override;

 private:
  std::vector<Clock::time_point> m_marks;
};

}  // namespace scaletune::core
