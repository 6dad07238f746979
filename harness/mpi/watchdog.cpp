#include "watchdog.hpp"

#include <chrono>

namespace scaletune::mpi {

Watchdog::Watchdog(double limit_s, std::function<void()> on_expire) {
  m_thread = std::thread([this, limit_s, fn = std::move(on_expire)] {
    std::unique_lock lock(m_mutex);
    const bool cancelled = m_cancel.wait_for(lock, std::chrono::duration<double>(limit_s),
                                             [this] { return m_cancelled; });
    if (!cancelled) fn();
  });
}

Watchdog::~Watchdog() {
  {
    const std::lock_guard lock(m_mutex);
    m_cancelled = true;
  }
  m_cancel.notify_all();
  m_thread.join();
}

double hard_limit_s(double timeout_s) {
  return 1.25 * timeout_s + 10.0;
}

}  // namespace scaletune::mpi
