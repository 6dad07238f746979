#pragma once
// A hard deadline for code that may never return (a rank stuck inside an iteration or a
// collective), which the between-iteration timeout check cannot see.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace scaletune::mpi {

/// Runs `on_expire` on a thread of its own if it is still alive `limit_s` seconds after
/// construction; destruction before that cancels it. `on_expire` is expected to end the
/// process (MPI_Abort); it runs while the owning thread is blocked, so it must not touch what
/// that thread is using.
class Watchdog {
 public:
  Watchdog(double limit_s, std::function<void()> on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex m_mutex;
  std::condition_variable m_cancel;
  bool m_cancelled = false;
  std::thread m_thread;
};

/// The hard limit of a configuration with run.timeout_s = `timeout_s`: 1.25 timeout_s + 10 s,
/// so the cooperative check between iterations normally acts first.
double hard_limit_s(double timeout_s);

}  // namespace scaletune::mpi
