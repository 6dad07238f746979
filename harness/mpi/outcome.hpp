#pragma once
// One rank's outcome of a configuration while it runs: the first failure wins, exceptions
// become statuses (never crossing a collective), and a deadline turns into a timeout.

#include <chrono>
#include <exception>
#include <string>

#include "harness/mpi/failure.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// The status and message of the first failure on this rank (ok while none).
struct Outcome {
  results::Status status = results::Status::ok;
  std::string error;
  /// Records a failure unless one was recorded already.
  void fail(results::Status s, std::string message);
};

/// Runs `fn`, turning an exception into the outcome (out of memory is oom, classify_failure).
template <typename Fn>
void guarded(Outcome& out, Fn&& fn) {
  try {
    fn();
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
  /// Records status timeout in `out` once the deadline has passed.
  void check(Outcome& out) const;

 private:
  std::chrono::steady_clock::time_point m_end;
  double m_timeout_s;
};

}  // namespace scaletune::mpi
