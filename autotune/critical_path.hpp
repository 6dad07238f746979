#pragma once
// A training step's time composed from its description (trace::RankTrace of every rank) and the
// time of each op and collective, along each rank's critical path (Lin et al., "Towards
// Universal Performance Modeling for ML Training on Multi-GPU Platforms", TPDS 2025, section
// 4: per-rank compute and communication streams synchronised at collectives). Each rank has a
// compute stream and a communication stream:
// - a compute op starts when the rank's previous compute op ends;
// - a collective starts when every participant has issued it (its compute stream reached it)
//   and every participant's communication stream is free; it ends its time later;
// - after a blocking collective the rank's compute waits for its end; after a started one
//   (a gradient bucket during backward) compute goes on until the next wait for started
//   collectives, which waits for the communication stream to drain;
// - the step ends when the latest rank's streams are both idle.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "harness/trace/step_trace.hpp"
#include "harness/trace/timeline_span.hpp"

namespace scaletune::autotune {

/// Seconds one compute op takes on its rank's device (an op model's prediction).
using OpTime = std::function<double(const trace::ComputeOp&)>;
/// Seconds one collective takes once all its participants have joined (a collective model's).
using CollectiveTime = std::function<double(const trace::Collective&)>;

/// Where one rank's step time went, s.
struct RankBreakdown {
  double end_s = 0.0;      ///< when the rank's last work ended
  double compute_s = 0.0;  ///< summed compute op time
  /// Time the compute stream stood still for communication in progress (a blocking
  /// collective's transfer, a wait for started ones still running)
  double exposed_communication_s = 0.0;
  /// Time the compute stream stood still for other ranks to reach a collective (or for the
  /// communication stream to free up) before it could start
  double waiting_s = 0.0;
  std::vector<double> phase_s;  ///< [phases]: compute stream time charged to each phase
};

/// A composed step.
struct ComposedStep {
  double step_time_s = 0.0;  ///< the latest rank's end
  int critical_rank = 0;     ///< the rank that ends last (the lowest of equals)
  std::vector<RankBreakdown> ranks;
  /// every op (kind op) and collective, by rank then issue order; iteration 0, seconds from the
  /// step's start
  std::vector<trace::TimelineSpan> spans;
};

/// Composes the step of `ranks` (one trace per rank of the configuration, in rank order, each
/// with ranks.size() participants in every collective) with `op_time` and `collective_time`.
/// Throws std::invalid_argument when the ranks do not issue the same collectives (op and
/// participants) in the same order, when a collective's participants are not all the ranks,
/// or when a time is negative or not finite.
ComposedStep compose_step(const std::vector<trace::RankTrace>& ranks, const OpTime& op_time,
                          const CollectiveTime& collective_time);

/// compose_step of `ranks` ranks that all issue `rank`'s events (ranks alike, as
/// core::WorkloadEntry::ranks_alike says: what differs between them is the data, never an op,
/// a shape or a collective), composed once: every rank reaches each collective when rank 0 does,
/// so each rank's streams run as rank 0's. ranks holds `ranks` copies of rank 0's breakdown,
/// critical_rank is 0 and spans are rank 0's only. Throws std::invalid_argument as compose_step
/// (a collective's participants must be `ranks`) and when ranks < 1.
ComposedStep compose_alike_step(const trace::RankTrace& rank, int ranks, const OpTime& op_time,
                                const CollectiveTime& collective_time);

}  // namespace scaletune::autotune
