#include "harness/results/detail/call_trace.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "harness/results/detail/h5_call.hpp"

namespace scaletune::results::detail {
namespace {

CallTrace* g_trace = nullptr;

/// Copies `text` into `out` (of `size` chars), cut short where it does not fit, NUL-terminated.
template <std::size_t size>
void copy_text(std::string_view text, char (&out)[size]) {
  const std::size_t n = std::min(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace

void trace_calls_into(CallTrace* trace) {
  g_trace = trace;
  if (g_trace != nullptr) *g_trace = CallTrace{};
}

void trace_call_begin(const char* call_text, const H5Where& where) {
  if (g_trace == nullptr) return;
  const std::string_view call(call_text);
  copy_text(call.substr(0, call.find('(')), g_trace->call);
  copy_text(where.object.empty() ? std::string_view("the file") : std::string_view(where.object),
            g_trace->object);
  ++g_trace->depth;
}

void trace_close_begin(const char* function) {
  if (g_trace == nullptr) return;
  copy_text(function, g_trace->call);
  g_trace->object[0] = '\0';
  ++g_trace->depth;
}

void trace_call_end() {
  if (g_trace != nullptr && g_trace->depth > 0) --g_trace->depth;
}

std::string describe_last_call(const CallTrace& trace) {
  if (trace.call[0] == '\0') return "";
  if (trace.object[0] == '\0') return trace.call;
  return std::string(trace.call) + " at " + trace.object;
}

}  // namespace scaletune::results::detail
