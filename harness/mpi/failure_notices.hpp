#pragma once
// A rank that fails inside a configuration says so to world rank 0 at once, so that when the
// other ranks are left waiting for it in a collective (an exception part-way through a step),
// rank 0 can end the launch with the configuration recorded as error (failure_watch.hpp)
// instead of the watchdog ending it minutes later as a timeout.

#include <mpi.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace scaletune::mpi {

/// The launch's channel for failure notices: a duplicate of the world communicator that carries
/// nothing else, each notice tagged with its configuration's index. Rank 0 receives them on a
/// thread of its own while its main thread may be inside a collective, so they travel only when
/// MPI provides MPI_THREAD_MULTIPLE; otherwise enabled() is false and announce() does nothing
/// (the watchdog alone ends a stranded configuration).
class FailureNotices {
 public:
  /// Collective over `world` (MPI_Comm_dup). Throws MpiError.
  explicit FailureNotices(MPI_Comm world);
  /// MPI_Comm_free; never throws.
  ~FailureNotices();
  FailureNotices(const FailureNotices&) = delete;
  FailureNotices& operator=(const FailureNotices&) = delete;

  /// Whether notices travel (MPI_THREAD_MULTIPLE was provided).
  bool enabled() const { return m_enabled; }
  /// Every rank, on its main thread, before configuration `index` (>= 0) runs: the tag of the
  /// notices that follow; re-arms announce().
  void begin(int index);
  /// A rank whose configuration failed, on its main thread: tells world rank 0 `message` (for
  /// example "rank 1: <what>"; cut to 1,000 bytes), once per configuration. Never waits for it
  /// to be received (MPI_Isend, the request freed; the text is kept until destruction). On rank 0
  /// the notice is kept locally. Throws MpiError.
  void announce(const std::string& message);
  /// The main thread, after each step of the current configuration: its length, s; the longest
  /// is kept (for how long the other ranks may still need to finish theirs).
  void note_step(double seconds);
  /// The longest step noted since begin(), s (0 before any); from any thread.
  double longest_step_s() const { return m_longest_step_s; }
  /// Rank 0, from any thread: the message of the first notice of the current configuration once
  /// one has arrived; notices of earlier configurations are received and dropped. Throws
  /// MpiError.
  std::optional<std::string> poll();

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  bool m_enabled = false;
  std::atomic<int> m_tag{0};
  std::atomic<double> m_longest_step_s{0.0};
  bool m_announced = false;            ///< for the current configuration (main thread only)
  std::mutex m_mutex;                  ///< guards m_local and the receiving of notices
  std::optional<std::string> m_local;  ///< rank 0's own failure of the current configuration
  std::deque<std::string> m_sent;      ///< texts of sends that may still be in flight
};

}  // namespace scaletune::mpi
