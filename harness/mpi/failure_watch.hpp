#pragma once
// Rank 0's watch over a running configuration for a failed rank the others are left waiting
// for: an exception part-way through a step leaves the other ranks inside the step's next
// collective, which never completes, so the ranks cannot agree on the failure.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/mpi/failure_notices.hpp"

namespace scaletune::mpi {

/// On a thread of its own, polls `notices` every 10 ms from construction to destruction; when a
/// rank has announced a failure and the watch is still alive grace_s() seconds later (asked when
/// the notice arrives; the configuration's ranks have not agreed on the failure and returned),
/// calls `on_stranded(message, grace)` with the notice's message and that grace. `on_stranded` is
/// expected to end the process (MPI_Abort); it runs while the owning thread may be blocked, so it
/// must not touch what that thread is using. Requires notices.enabled().
class FailureWatch {
 public:
  using Stranded = std::function<void(const std::string& message, double grace_s)>;
  FailureWatch(FailureNotices& notices, std::function<double()> grace_s, Stranded on_stranded);
  ~FailureWatch();
  FailureWatch(const FailureWatch&) = delete;
  FailureWatch& operator=(const FailureWatch&) = delete;

 private:
  /// The thread: polls until a notice arrives, then waits out the grace (or cancellation).
  void watch(FailureNotices& notices, const std::function<double()>& grace_s,
             const Stranded& on_stranded);
  /// Waits `seconds` unless cancelled first; true when cancelled.
  bool cancelled_within(double seconds);

  std::mutex m_mutex;
  std::condition_variable m_cancel;
  bool m_cancelled = false;
  std::thread m_thread;
};

/// How long ranks may take to agree on a failure once a rank announced it, s: 5 s + 0.1
/// run.timeout_s + twice the longest step so far (`longest_step_s`), time for the other ranks to
/// finish the step they are in. Past it they are taken to be waiting for the failed rank in a
/// collective.
double stranded_grace_s(double timeout_s, double longest_step_s);

}  // namespace scaletune::mpi
