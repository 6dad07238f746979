#include "harness/trace/chrome_trace.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace scaletune::trace {
namespace {

using nlohmann::json;

constexpr int kComputeThread = 1;
constexpr int kCommunicationThread = 2;

json metadata(const char* what, int pid, int tid, json args) {
  json e = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", std::move(args)}};
  if (tid != 0) e["tid"] = tid;
  return e;
}

/// The metadata events of process `pid`: its name and sort index, and its two threads.
void name_process(json& events, int pid, const std::string& name) {
  events.push_back(metadata("process_name", pid, 0, {{"name", name}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  events.push_back(metadata("thread_name", pid, kComputeThread, {{"name", "compute"}}));
  events.push_back(metadata("thread_name", pid, kCommunicationThread, {{"name", "communication"}}));
  events.push_back(metadata("thread_sort_index", pid, kComputeThread, {{"sort_index", 1}}));
  events.push_back(metadata("thread_sort_index", pid, kCommunicationThread, {{"sort_index", 2}}));
}

double iteration_start(const TimelineExport& t, int iteration) {
  const auto i = static_cast<std::size_t>(iteration);
  return iteration >= 0 && i < t.iteration_start_s.size() ? t.iteration_start_s[i] : 0.0;
}

json span_event(const TimelineExport& t, const TimelineSpan& s, int pid) {
  const double start_s = iteration_start(t, s.iteration) + s.begin_s;
  json args = {{"iteration", s.iteration}, {"phase", s.phase}};
  if (s.kind == SpanKind::collective) args["bytes"] = s.bytes;
  return {{"name", s.name},
          {"cat", std::string(span_kind_text(s.kind))},
          {"ph", "X"},
          {"ts", 1e6 * start_s},
          {"dur", 1e6 * (s.end_s - s.begin_s)},
          {"pid", pid},
          {"tid", s.kind == SpanKind::collective ? kCommunicationThread : kComputeThread},
          {"args", std::move(args)}};
}

}  // namespace

std::string chrome_trace_json(const std::vector<TimelineExport>& timelines) {
  json events = json::array();
  int next_pid = 1;
  for (const TimelineExport& t : timelines) {
    std::map<int, int> pid_of_rank;
    for (const TimelineSpan& s : t.spans)
      if (!pid_of_rank.contains(s.rank)) pid_of_rank[s.rank] = 0;
    for (auto& [rank, pid] : pid_of_rank) {
      pid = next_pid++;
      name_process(events, pid, t.label + " rank " + std::to_string(rank));
    }
    for (const TimelineSpan& s : t.spans) events.push_back(span_event(t, s, pid_of_rank[s.rank]));
  }
  return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

}  // namespace scaletune::trace
