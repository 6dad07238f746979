#pragma once
// One rank's training step described without running it (DESIGN.md "One step, three uses"):
// the ordered compute ops (kind, shape fields, element type, FLOPs, bytes) and collectives
// (op, element count or per-peer counts, participants, whether the caller waits for them) of
// one iteration, each in the phase the workload marks it in. A describing backend and
// communicator produce it (`scaletune trace`), a recording communicator produces the
// collectives of a real step, and the predictor composes it with op and collective models.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scaletune::trace {

/// One named shape field of an op ("m", "n", "k", "batch", "rows", ...): the features an op
/// model of that kind is fitted on.
struct ShapeField {
  std::string name;
  std::int64_t value = 0;
  bool operator==(const ShapeField&) const = default;
};

/// A compute op queued on the rank's compute stream.
struct ComputeOp {
  std::string op;                 ///< op kind: "gemm", "conv2d_forward", "layer_norm_backward", ...
  std::vector<ShapeField> shape;  ///< the op kind's shape fields, in a fixed order per kind
  std::string dtype;              ///< element type of its activations: "fp32", "bf16", ...
  double flops = 0.0;             ///< floating-point operations (2 per multiply-add)
  double bytes = 0.0;             ///< bytes read and written at least once (compulsory traffic)
  /// The 17-bin reuse histogram of an embedding lookup's indices (share of the distinct rows
  /// read 1, 2, 3-4, ..., > 2^15 times; core::TableRankStats's bins); empty for other ops.
  std::vector<double> reuse_histogram;
  bool operator==(const ComputeOp&) const = default;
};

/// A collective of the rank's communicator.
struct Collective {
  /// "all_reduce", "reduce_scatter", "reduce_scatterv", "all_gather", "all_gatherv",
  /// "alltoall", "alltoallv", "broadcast", "barrier" (the /collectives names where one exists)
  std::string op;
  std::string dtype;       ///< element type: "fp32", "fp64", ...
  std::int64_t count = 0;  ///< elements this rank sends (the send count of the interface)
  std::int64_t bytes = 0;  ///< the message size of nccl-tests: count x element size (alltoall:
                           ///< the whole send buffer; v-ops: the largest per-rank block x size)
  /// Per-peer element counts of the v-ops, [participants] (alltoallv: what this rank sends to
  /// each peer; all_gatherv and reduce_scatterv: every rank's block); empty otherwise.
  std::vector<std::int64_t> peer_counts;
  /// alltoallv only: what this rank receives from each peer, [participants]
  std::vector<std::int64_t> recv_counts;
  int participants = 0;  ///< ranks of the communicator
  /// True for a started all-reduce (start_all_reduce): work goes on until the next wait; false
  /// for a blocking collective, which the next op waits for.
  bool started = false;
  bool operator==(const Collective&) const = default;
};

/// What one event is: a compute op, a collective, or the point where the rank waits for every
/// started collective (Communicator::wait_started).
enum class EventKind { compute, collective, wait_started };

/// One event of the step, in issue order.
struct Event {
  EventKind kind = EventKind::compute;
  int phase = 0;          ///< index into RankTrace::phase_names: the phase it is charged to
  ComputeOp compute;      ///< kind compute
  Collective collective;  ///< kind collective
  bool operator==(const Event&) const = default;
};

/// One rank's step.
/// What a built workload reports of itself (core::Workload's params(), flops_per_sample(),
/// per_rank_batch(), attributes() and text_attributes()), which a run stores in its
/// configuration's attributes.
struct WorkloadAttributes {
  double params = 0;                ///< trainable parameters (count)
  double flops_per_sample = 0;      ///< training FLOP per sample, forward + backward
  std::vector<int> per_rank_batch;  ///< [ranks] samples, when the workload split the batch
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> texts;
};

struct RankTrace {
  int rank = 0;
  int ranks = 0;                         ///< ranks of the configuration
  std::vector<std::string> phase_names;  ///< [phases], the workload's
  std::vector<Event> events;
  std::int64_t memory_peak_bytes = 0;  ///< the workload's accounted peak on this rank, bytes
  WorkloadAttributes workload;         ///< as the workload on this rank reports them
};

/// The shape fields as text, "name=value" separated by single spaces ("m=512 n=256 k=128"),
/// the /ops table's shape column.
std::string shape_text(const std::vector<ShapeField>& shape);
/// The inverse of shape_text. Throws std::invalid_argument quoting the text for a token that is
/// not name=integer.
std::vector<ShapeField> parse_shape_text(const std::string& text);

/// The collectives of `trace`, in order (blocking and started alike).
std::vector<Collective> collectives_of(const RankTrace& trace);

/// One line for a collective: "all_reduce fp32 count=1024 bytes=4096 ranks=2 started".
std::string describe(const Collective& c);
/// One line for a compute op: "gemm fp32 m=512 n=256 k=128 flops=3.4e7 bytes=1.2e6".
std::string describe(const ComputeOp& op);

/// Totals over a trace.
struct TraceTotals {
  std::size_t ops = 0;            ///< compute ops
  std::size_t collectives = 0;    ///< collectives (blocking and started)
  double flops = 0.0;             ///< summed over the compute ops
  double op_bytes = 0.0;          ///< summed over the compute ops
  double collective_bytes = 0.0;  ///< summed Collective::bytes
};
TraceTotals totals(const RankTrace& trace);

/// Receives a rank's collectives in issue order from core::RecordingCommunicator: Recorder (a
/// step's description) and core::TimelineRecorder (a measured timeline) listen so. It calls add()
/// (or add_wait_started()) before it hands the call on and issued() once the call has returned, and
/// progressed() when progress_started() reports every started collective complete. Nothing is
/// called while recording() is false.
class CollectiveSink {
 public:
  virtual ~CollectiveSink() = default;
  /// Whether collectives are wanted now.
  virtual bool recording() const = 0;
  /// A collective about to be issued.
  virtual void add(Collective c) = 0;
  /// Communicator::wait_started() about to be called.
  virtual void add_wait_started() = 0;
  /// The call announced by the last add() or add_wait_started() has returned.
  virtual void issued() {}
  /// progress_started() returned true: every started collective has completed.
  virtual void progressed() {}
};

/// Appends events to a RankTrace. As core::PhaseTimer charges time, the events recorded since
/// the previous end_phase() are charged to the phase the next end_phase() names (those after the
/// last one to the last phase marked). Describing backends and communicators and a recording
/// communicator share one recorder per rank, so the events keep their issue order.
class Recorder final : public CollectiveSink {
 public:
  /// Starts recording a step of `phase_names` (clears what was recorded before).
  void begin(std::vector<std::string> phase_names);
  /// PhaseTimer::mark(phase): the events since the previous mark belong to `phase`. Throws
  /// std::out_of_range for a phase past phase_names.
  void end_phase(std::size_t phase);
  /// Whether events are recorded now (between begin() and take()).
  bool recording() const override { return m_recording; }
  void add(ComputeOp op);
  void add(Collective c) override;
  void add_wait_started() override;
  /// The recorded step (events so far); stops recording.
  RankTrace take();

 private:
  RankTrace m_trace;
  std::size_t m_unmarked = 0;  ///< first event not charged to a phase yet
  std::size_t m_offered = 0;   ///< events offered while not recording (a capacity hint)
  int m_last_phase = 0;
  bool m_recording = false;
};

}  // namespace scaletune::trace
