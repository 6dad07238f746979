#pragma once
// The spans of timed iterations on one rank (DESIGN.md "/configs/<id>/timeline"): the phases
// PhaseTimer charges, on the host clock, and the collectives a RecordingCommunicator reports,
// stamped with the communicator's CommTimer (host: the clock; NCCL: events on its stream, so
// stamps cost no wait and are device times).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/trace/step_trace.hpp"
#include "harness/trace/timeline_span.hpp"

namespace scaletune::core {

/// Records the spans of every timed iteration (rank 0 in each span; the runner sets the rank).
/// Both clocks start at begin_iteration(), which PhaseTimer calls right after its fence, so
/// begin_s and end_s are seconds from the start of the iteration on both tracks.
/// A blocking collective spans from before its call to its return (host) or from its turn on
/// the communicator's stream to its end there (device). A started all-reduce on a device
/// communicator ends with its work on the stream; on a host communicator, whose start returns at
/// once, it ends at the first stamp known to follow its completion: a progress_started() that
/// returned true or the return of wait_started(), so a host span is an upper bound. A
/// collective is charged to the phase marked after it, as trace::Recorder charges events.
class TimelineRecorder final : public trace::CollectiveSink {
 public:
  /// `timer`: a timer of the communicator the collectives go through; `space`: its memory
  /// space.
  TimelineRecorder(std::unique_ptr<CommTimer> timer, MemorySpace space);

  /// Starts timed iteration `iteration` (stamps the communication clock).
  void begin_iteration(int iteration);
  /// Phase `name` ran from begin_s to end_s of the iteration; charges the collectives reported
  /// since the previous phase to it.
  void phase(const std::string& name, double begin_s, double end_s);
  /// Ends the iteration: waits for the communicator's last stamp and gives every collective of
  /// the iteration its times (one still open ends here). Throws what CommTimer::intervals()
  /// throws.
  void end_iteration();

  bool recording() const override { return m_recording; }
  void add(trace::Collective c) override;
  void add_wait_started() override;
  void issued() override;
  void progressed() override;

  /// Every span recorded so far, by iteration, phases and collectives in the order they ended
  /// or were issued.
  const std::vector<trace::TimelineSpan>& spans() const { return m_spans; }

 private:
  /// A collective of the current iteration: its span and its stamps (-1: not yet).
  struct Pending {
    std::size_t span = 0;
    int begin_stamp = 0;
    int end_stamp = -1;
    bool started = false;
  };

  int stamp();
  void close_started(int at);

  std::unique_ptr<CommTimer> m_timer;
  bool m_started_end_on_return;
  std::vector<trace::TimelineSpan> m_spans;
  std::vector<Pending> m_pending;   ///< this iteration's collectives
  std::size_t m_unphased = 0;       ///< first of m_pending not charged to a phase yet
  std::vector<std::size_t> m_open;  ///< started ones still open, indices into m_pending
  bool m_wait_announced = false;    ///< the call announced last is wait_started()
  int m_stamps = 0;
  int m_iteration = 0;
  std::string m_last_phase;
  bool m_recording = false;
};

}  // namespace scaletune::core
