// ComputeClock: the time between marks charged to the compute phases only, in warm-up steps
// too (marks outside a timed iteration), and the timer's observer removed with the clock.
#include "kernels/transformer/compute_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace scaletune::kernels {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(ComputeClock, ChargesOnlyTheComputePhasesOutsideTimedIterations) {
  core::PhaseTimer timer({"fwd", "wait", "bwd"}, 1, [] {});
  const Clock::time_point start = Clock::now();
  double busy_s = 0, after_wait_s = 0, wait_end_s = 0;
  {
    const ComputeClock clock(timer, {0, 2});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    timer.mark(0);  // 20 ms of fwd
    const double fwd_end_s = seconds_since(start);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    timer.mark(1);  // 30 ms waiting: not charged
    wait_end_s = seconds_since(start);
    after_wait_s = wait_end_s - fwd_end_s;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    timer.mark(2);  // 10 ms of bwd
    busy_s = clock.busy_s();
  }
  const double total_s = seconds_since(start);
  EXPECT_GE(busy_s, 0.030);                   // fwd and bwd slept 30 ms together
  EXPECT_GE(after_wait_s, 0.030);             // the wait itself
  EXPECT_LE(busy_s, total_s - after_wait_s);  // ... which is not in busy
  timer.mark(0);                              // no observer left: nothing to call
  EXPECT_TRUE(timer.iteration_times().empty() || timer.iteration_times()[0] == 0.0);
}

}  // namespace
}  // namespace scaletune::kernels
