#pragma once
// Times ops on one rank's backend: each op made runnable (op_invocation.hpp), called once
// untimed, then timed call by call with the device fenced before every clock read, until a
// few calls and a little time have passed; the whole list again in a few rounds; the median and
// interquartile range of all the op's calls.

#include <functional>
#include <string>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/trace/step_trace.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels::profile {

/// How long to time each op.
struct TimingRule {
  int min_calls = 5;          ///< at least this many timed calls
  int max_calls = 200;        ///< at most this many
  double min_seconds = 0.02;  ///< keep calling until this much time has passed ...
  double max_seconds = 0.5;   ///< ... but stop once this much has (after min_calls)
  /// Rounds over the whole op list: each round times every op again (the same drawn inputs),
  /// and an op's median and spread are over the calls of all rounds, so a slow spell of the
  /// machine does not land on a few ops only.
  int rounds = 3;
  /// Called before each op's untimed call (e.g. a barrier, so that ranks time it together);
  /// empty: nothing.
  std::function<void()> before_op;
};

/// One op's timing on this rank.
struct OpSample {
  trace::ComputeOp record;  ///< as it ran (op_invocation's record)
  double time_s = 0.0;      ///< median call, s
  double iqr_s = 0.0;       ///< interquartile range of the calls, s
  int calls = 0;            ///< timed calls, all rounds
  std::string error;        ///< why it could not run (then no times); empty when it ran
};

/// Times every op of `ops` on `backend`, fencing `device`, each with its own tensors (freed
/// before the next op); `progress(i, sample)` after each. An op that cannot run (too large:
/// std::bad_alloc, or a shape the backend refuses: std::invalid_argument) gets its error and
/// the profile goes on.
std::vector<OpSample> profile_ops(
    ops::Backend& backend, core::Device& device, const std::vector<trace::ComputeOp>& ops,
    const TimingRule& rule, const std::function<void(std::size_t, const OpSample&)>& progress);

}  // namespace scaletune::kernels::profile
