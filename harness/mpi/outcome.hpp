#pragma once
// One rank's outcome of a configuration while it runs: the first failure wins (an unusable
// device wins over any other), exceptions become statuses (never crossing a collective), and a
// deadline turns into a timeout.

#include <chrono>
#include <exception>
#include <string>

#include "harness/core/fatal_device_error.hpp"
#include "harness/mpi/failure.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// The status and message of the first failure on this rank (ok while none).
struct Outcome {
  results::Status status = results::Status::ok;
  std::string error;
  /// The recorded failure is a core::FatalDeviceError: this rank's device is unusable, and the
  /// launch must stop after this configuration.
  bool fatal_device = false;
  /// Records a failure unless one was recorded already.
  void fail(results::Status s, std::string message);
  /// Records status error with `message` as an unusable device, replacing an earlier failure
  /// that was not one (the device's loss is what the launch must act on).
  void fail_device(std::string message);
};

/// Runs `fn`, turning an exception into the outcome: core::FatalDeviceError is fail_device,
/// out of memory is oom and a given-up wait timeout (classify_failure), anything else error.
template <typename Fn>
void guarded(Outcome& out, Fn&& fn) {
  try {
    fn();
  } catch (const core::FatalDeviceError& e) {
    out.fail_device(one_line(e.what()));
  } catch (const std::exception& e) {
    const results::Status status = classify_failure(e);
    out.fail(status,
             (status == results::Status::oom ? "out of memory: " : "") + one_line(e.what()));
  }
}

/// run.timeout_s from construction on; check() records a timeout once it has passed.
class Deadline {
 public:
  /// The deadline `timeout_s` seconds from now.
  explicit Deadline(double timeout_s);
  /// Records status cancelled in `out` once a signal asked the process to stop
  /// (cancel_request.hpp: "cancelled by SIGTERM"), and timeout once the deadline has passed.
  void check(Outcome& out) const;

 private:
  std::chrono::steady_clock::time_point m_end;
  double m_timeout_s;
};

}  // namespace scaletune::mpi
