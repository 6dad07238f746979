#include "error_context.hpp"

#include <mutex>
#include <utility>

namespace scaletune::core {

namespace {

std::mutex& context_mutex() {
  static std::mutex mutex;
  return mutex;
}

ErrorContext& context() {
  static ErrorContext c;
  return c;
}

}  // namespace

void set_error_context(int rank, std::string host, std::string device) {
  const std::lock_guard lock(context_mutex());
  context() = {rank, std::move(host), std::move(device)};
}

ErrorContext current_error_context() {
  const std::lock_guard lock(context_mutex());
  return context();
}

std::string describe_error_context(const ErrorContext& c) {
  if (c.rank < 0) return "";
  std::string text = "on rank " + std::to_string(c.rank) + " (host " + c.host;
  if (!c.device.empty()) text += ", device " + c.device;
  return text + ")";
}

std::string error_context() {
  return describe_error_context(current_error_context());
}

std::string failed_call_message(const char* call, const char* file, int line,
                                const std::string& detail) {
  const std::string where = error_context();
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) +
         (where.empty() ? "" : " " + where) + ": " + detail;
}

}  // namespace scaletune::core
