#include "harness/mpi/cancel_request.hpp"

#include <atomic>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace scaletune::mpi {
namespace {

/// The signal noted, 0 while none (lock-free, so the handler may store it).
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr int kCancelSignals[] = {SIGTERM, SIGINT};

/// Notes the signal and gives both signals back their default action (sigaction is
/// async-signal-safe), so that the next one ends the process.
extern "C" void on_cancel_signal(int signal) {
  g_signal.store(signal);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  for (const int s : kCancelSignals) sigaction(s, &fallback, nullptr);
}

}  // namespace

void install_cancel_handlers() {
  struct sigaction action {};
  action.sa_handler = on_cancel_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int signal : kCancelSignals)
    if (sigaction(signal, &action, nullptr) != 0)
      throw std::runtime_error("sigaction(" + signal_name(signal) +
                               ") failed: " + std::strerror(errno));
}

int cancel_signal() {
  return g_signal.load();
}

std::string signal_name(int signal) {
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGINT) return "SIGINT";
  return "signal " + std::to_string(signal);
}

}  // namespace scaletune::mpi
