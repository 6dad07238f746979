#pragma once
// A communicator that reports every collective issued through it (op, element counts, element
// type, participants, started or blocking) to a trace::CollectiveSink, hands the call to the
// communicator it wraps and reports its return. Over a real communicator it records a step that
// runs (the test that a step's description matches it; the runner's timeline); over a
// DetachedCommunicator it describes one that does not.

#include <memory>

#include "harness/core/communicator.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::core {

/// Reports to `sink` and forwards to `inner` (both must outlive it), only while
/// sink.recording(). Allocation, timers and synchronize() forward without a report;
/// progress_started() reports sink.progressed() when it returns true; barrier() reports as
/// "barrier", wait_started() as a wait.
class RecordingCommunicator final : public Communicator {
 public:
  RecordingCommunicator(Communicator& inner, trace::CollectiveSink& sink);

  int rank() const override { return m_inner.rank(); }
  int size() const override { return m_inner.size(); }
  std::string backend() const override { return m_inner.backend(); }
  MemorySpace memory_space() const override { return m_inner.memory_space(); }
  std::unique_ptr<CommBuffer> allocate(std::size_t bytes) override {
    return m_inner.allocate(bytes);
  }
  std::unique_ptr<CommTimer> timer() override { return m_inner.timer(); }

  void all_reduce(const void* send, void* recv, std::size_t count, DType type,
                  ReduceOp op) override;
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, DType type,
                      ReduceOp op) override;
  void reduce_scatterv(const void* send, void* recv, std::span<const std::size_t> counts,
                       DType type, ReduceOp op) override;
  void all_gather(const void* send, void* recv, std::size_t send_count, DType type) override;
  void all_gatherv(const void* send, void* recv, std::span<const std::size_t> counts,
                   DType type) override;
  void all_to_all(const void* send, void* recv, std::size_t count, DType type) override;
  void all_to_allv(const void* send, std::span<const std::size_t> send_counts, void* recv,
                   std::span<const std::size_t> recv_counts, DType type) override;
  void broadcast(const void* send, void* recv, std::size_t count, DType type, int root) override;
  void start_all_reduce(const void* send, void* recv, std::size_t count, DType type,
                        ReduceOp op) override;
  bool progress_started() override;
  void wait_started() override;
  void barrier() override;
  void synchronize() override { m_inner.synchronize(); }

 private:
  /// The collective of a uniform op: `count` elements sent, `message_elements` the nccl-tests
  /// message size.
  trace::Collective collective(const char* op, std::size_t count, DType type,
                               std::size_t message_elements, bool started = false) const;
  /// The collective of a v-op of per-rank `counts`.
  trace::Collective collective_v(const char* op, std::span<const std::size_t> counts,
                                 DType type) const;
  /// Reports `make()` (only built while recording), runs `call`, reports its return.
  template <class Make, class Call>
  void around(Make&& make, Call&& call);

  Communicator& m_inner;
  trace::CollectiveSink& m_sink;
};

}  // namespace scaletune::core
