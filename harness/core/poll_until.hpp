#pragma once
// Waiting by polling with a limit: how a communicator waits for a peer that may never come
// (nccl::detail::wait_for_stream) without blocking in the driver forever.

#include <chrono>
#include <thread>

namespace scaletune::core {

/// Calls done() until it returns true, yielding the thread between calls. When limit_s seconds
/// (> 0) have passed since the call and done() still returns false, calls give_up(), which must
/// throw (a give_up() that returns ends the wait as if done). done() may throw; its exceptions
/// pass through.
template <class Done, class GiveUp>
void poll_until(Done done, double limit_s, GiveUp give_up) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) {
      give_up();
      return;
    }
    std::this_thread::yield();
  }
}

}  // namespace scaletune::core
