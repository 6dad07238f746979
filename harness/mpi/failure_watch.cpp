#include "failure_watch.hpp"

#include <chrono>
#include <exception>

namespace scaletune::mpi {

namespace {
constexpr double kPollS = 0.01;
}  // namespace

FailureWatch::FailureWatch(FailureNotices& notices, std::function<double()> grace_s,
                           Stranded on_stranded) {
  m_thread = std::thread([this, &notices, grace = std::move(grace_s), fn = std::move(on_stranded)] {
    try {
      watch(notices, grace, fn);
    } catch (const std::exception&) {
      // MPI failed to poll: the watch ends, and the watchdog still bounds the configuration.
    }
  });
}

FailureWatch::~FailureWatch() {
  {
    const std::lock_guard lock(m_mutex);
    m_cancelled = true;
  }
  m_cancel.notify_all();
  m_thread.join();
}

void FailureWatch::watch(FailureNotices& notices, const std::function<double()>& grace_s,
                         const Stranded& on_stranded) {
  for (;;) {
    if (const auto message = notices.poll()) {
      const double grace = grace_s();
      if (!cancelled_within(grace)) on_stranded(*message, grace);
      return;
    }
    if (cancelled_within(kPollS)) return;
  }
}

bool FailureWatch::cancelled_within(double seconds) {
  std::unique_lock lock(m_mutex);
  return m_cancel.wait_for(lock, std::chrono::duration<double>(seconds),
                           [this] { return m_cancelled; });
}

double stranded_grace_s(double timeout_s, double longest_step_s) {
  return 5.0 + 0.1 * timeout_s + 2.0 * longest_step_s;
}

}  // namespace scaletune::mpi
