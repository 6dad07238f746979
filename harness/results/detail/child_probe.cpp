#include "harness/results/detail/child_probe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>
#include <thread>

#include "harness/results/detail/call_trace.hpp"
#include "harness/results/result_error.hpp"

// In a sanitizer build (make test-sanitize, the fuzz targets): where AddressSanitizer writes its
// reports (sanitizer/common_interface_defs.h); null elsewhere.
extern "C" __attribute__((weak)) void __sanitizer_set_report_fd(void* fd);

namespace scaletune::results::detail {
namespace {

/// The child's exit status when `read` threw (the parent reads again and gets the error).
constexpr int kReadThrew = 3;

/// Whether this process is a probe's child (which reads without probing again).
bool g_in_child = false;

/// A CallTrace in an anonymous shared mapping, which a forked child writes and the parent reads.
class SharedTrace {
 public:
  explicit SharedTrace(const std::string& path) {
    void* memory =
        mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
      throw ResultError(path + ": cannot map memory to read the file in a child process: " +
                        std::strerror(errno));
    m_trace = new (memory) CallTrace{};
  }
  ~SharedTrace() { munmap(m_trace, sizeof(CallTrace)); }
  SharedTrace(const SharedTrace&) = delete;
  SharedTrace& operator=(const SharedTrace&) = delete;

  CallTrace* get() const { return m_trace; }

 private:
  CallTrace* m_trace = nullptr;
};

/// The child: killed with its parent, its crash signals at their default action (a handler
/// the parent installed, a fuzzer's or a sanitizer's, must not act for it), silenced, traced,
/// runs `read`, exits without running exit handlers or flushing the parent's buffered output.
[[noreturn]] void run_child(CallTrace* trace, const std::function<void()>& read) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, SIG_DFL);
  g_in_child = true;
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    // What a damaged file makes HDF5 do in here is the probe's to report, not a sanitizer's.
    if (__sanitizer_set_report_fd != nullptr)
      __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(null)));
  }
  trace_calls_into(trace);
  int status = 0;
  try {
    read();
  } catch (...) {
    status = kReadThrew;
  }
  _exit(status);
}

/// Waits for `child` at most `deadline`; its wait status, or nullopt when it ran past the
/// deadline (it is then killed and reaped). A child reaped elsewhere (SIGCHLD ignored) counts
/// as finished.
std::optional<int> wait_for(pid_t child, std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  std::chrono::microseconds pause{100};
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) return status;
    if (done < 0 && errno != EINTR) return 0;
    if (std::chrono::steady_clock::now() >= end) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds{20'000});
  }
}

/// "Segmentation fault (signal 11)" or "exit status 1" (a sanitizer's report ends so).
std::string how_it_ended(int status) {
  if (WIFSIGNALED(status))
    return std::string(strsignal(WTERMSIG(status))) + " (signal " +
           std::to_string(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

/// The error for a child that ended as `what` ("Segmentation fault (signal 11)", "did not
/// finish within 30 s"), its trace saying where.
DamagedFileError damaged(const std::string& path, const std::string& what, const CallTrace& trace) {
  const std::string last = describe_last_call(trace);
  if (trace.depth > 0)
    return DamagedFileError(path + ": the file is damaged: reading it " + what + " in " + last +
                                "; nothing was read from it and it is left as it is",
                            true);
  return DamagedFileError(path + ": reading it " + what + " outside the HDF5 library" +
                              (last.empty() ? "" : " (after " + last + ")") +
                              ": a defect of scaletune; please report it with this file",
                          false);
}

/// "30 s", "0.2 s".
std::string seconds_text(std::chrono::milliseconds span) {
  std::string text = std::to_string(span.count() / 1000);
  if (span.count() % 1000 != 0) {
    std::string ms = std::to_string(1000 + span.count() % 1000).substr(1);
    ms.erase(ms.find_last_not_of('0') + 1);
    text += "." + ms;
  }
  return text + " s";
}

}  // namespace

std::chrono::milliseconds probe_deadline(const std::string& path) {
  if (const char* set = std::getenv(kDeadlineVariable); set != nullptr) {
    char* end = nullptr;
    const double seconds = std::strtod(set, &end);
    if (end == set || *end != '\0' || !(seconds > 0) || seconds > 1e6)
      throw ResultError(std::string(kDeadlineVariable) + "='" + set +
                        "': expected the seconds a reader waits for a file, a number in (0, 1e6]");
    return std::chrono::milliseconds{static_cast<long long>(std::ceil(seconds * 1000))};
  }
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  const std::uintmax_t extra_s = error ? 0 : bytes / (std::uintmax_t{8} << 20);
  return std::chrono::seconds{30 + static_cast<long long>(extra_s)};
}

void probe_in_child(const std::string& path, const std::function<void()>& read,
                    std::chrono::milliseconds deadline) {
  if (g_in_child) return;
  const SharedTrace trace(path);
  const pid_t child = fork();
  if (child < 0)
    throw ResultError(
        path + ": cannot read the file in a child process first: fork: " + std::strerror(errno));
  if (child == 0) run_child(trace.get(), read);
  const std::optional<int> status = wait_for(child, deadline);
  if (!status) throw damaged(path, "did not finish within " + seconds_text(deadline), *trace.get());
  if (WIFEXITED(*status) && (WEXITSTATUS(*status) == 0 || WEXITSTATUS(*status) == kReadThrew))
    return;
  throw damaged(path, "ended with " + how_it_ended(*status), *trace.get());
}

}  // namespace scaletune::results::detail
