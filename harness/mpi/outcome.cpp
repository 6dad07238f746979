#include "outcome.hpp"

#include "harness/mpi/cancel_request.hpp"

namespace scaletune::mpi {

using Clock = std::chrono::steady_clock;

void Outcome::fail(results::Status s, std::string message) {
  if (status != results::Status::ok) return;
  status = s;
  error = std::move(message);
}

void Outcome::fail_device(std::string message) {
  if (fatal_device) return;
  status = results::Status::error;
  error = std::move(message);
  fatal_device = true;
}

Deadline::Deadline(double timeout_s)
    : m_end(Clock::now() +
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s))),
      m_timeout_s(timeout_s) {}

void Deadline::check(Outcome& out) const {
  if (const int signal = cancel_signal(); signal != 0)
    out.fail(results::Status::cancelled, "cancelled by " + signal_name(signal));
  if (Clock::now() > m_end)
    out.fail(results::Status::timeout,
             "exceeded run.timeout_s = " + std::to_string(m_timeout_s) + " s");
}

}  // namespace scaletune::mpi
