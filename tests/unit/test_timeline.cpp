// Measured timelines on one rank (core::TimelineRecorder fed as PhaseTimer and a recording
// communicator feed it), the median iteration run.timeline = "one" keeps, and the Chrome trace
// export (its events read back with a JSON parser).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/timeline_recorder.hpp"
#include "harness/mpi/timeline_gather.hpp"
#include "harness/trace/chrome_trace.hpp"
#include "tests/support/timeline_spans.hpp"

namespace scaletune {
namespace {

using testing_support::timeline_span;
using trace::SpanKind;
using trace::TimelineSpan;

/// A communication clock whose k-th mark since the last intervals() is at k * 0.5 s.
class HalfSecondTimer final : public core::CommTimer {
 public:
  void mark() override { ++m_marks; }
  std::vector<double> intervals() override {
    std::vector<double> out(m_marks > 0 ? m_marks - 1 : 0, 0.5);
    m_marks = 0;
    return out;
  }

 private:
  std::size_t m_marks = 0;
};

trace::Collective collective(const char* op, std::int64_t bytes, bool started = false) {
  trace::Collective c;
  c.op = op;
  c.bytes = bytes;
  c.started = started;
  return c;
}

/// One iteration as a DDP step issues it: a started bucket in bwd, a progress poll that finds it
/// done (host) or not, a blocking all-reduce, a wait, then the optimizer phase. Stamps: 0 begin,
/// 1 bucket start, 2 its return, 3 progress (host only), then the all-reduce and the wait.
core::TimelineRecorder record_step(core::MemorySpace space) {
  core::TimelineRecorder t(std::make_unique<HalfSecondTimer>(), space);
  t.begin_iteration(3);
  t.add(collective("all_reduce", 4096, true));
  t.issued();
  t.progressed();
  t.phase("bwd", 0.0, 2.0);
  t.add(collective("all_reduce", 64));
  t.issued();
  t.add_wait_started();
  t.issued();
  t.phase("optimizer", 2.0, 3.0);
  t.end_iteration();
  return t;
}

std::vector<TimelineSpan> of_kind(const std::vector<TimelineSpan>& spans, SpanKind kind) {
  std::vector<TimelineSpan> out;
  for (const TimelineSpan& s : spans)
    if (s.kind == kind) out.push_back(s);
  return out;
}

TEST(TimelineRecorder, HostStartedAllReduceEndsAtTheFirstProofOfCompletion) {
  const core::TimelineRecorder t = record_step(core::MemorySpace::host);
  const std::vector<TimelineSpan> coll = of_kind(t.spans(), SpanKind::collective);
  ASSERT_EQ(coll.size(), 2u);
  // started at stamp 1 (0.5 s); progress_started() true at stamp 3 (1.5 s)
  EXPECT_EQ(coll[0].begin_s, 0.5);
  EXPECT_EQ(coll[0].end_s, 1.5);
  EXPECT_EQ(coll[0].phase, "bwd");
  EXPECT_EQ(coll[0].bytes, 4096);
  EXPECT_EQ(coll[0].iteration, 3);
  // blocking: stamps 4 and 5, charged to the phase marked after it
  EXPECT_EQ(coll[1].begin_s, 2.0);
  EXPECT_EQ(coll[1].end_s, 2.5);
  EXPECT_EQ(coll[1].phase, "optimizer");
  const std::vector<TimelineSpan> phases = of_kind(t.spans(), SpanKind::phase);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "bwd");
  EXPECT_EQ(phases[1].begin_s, 2.0);
  EXPECT_EQ(phases[1].end_s, 3.0);
}

TEST(TimelineRecorder, DeviceStartedAllReduceEndsWithItsWorkOnTheStream) {
  const core::TimelineRecorder t = record_step(core::MemorySpace::device);
  const std::vector<TimelineSpan> coll = of_kind(t.spans(), SpanKind::collective);
  ASSERT_EQ(coll.size(), 2u);
  EXPECT_EQ(coll[0].begin_s, 0.5);
  EXPECT_EQ(coll[0].end_s, 1.0);  // the event after the start, on the communicator's stream
  // nothing was open at the progress poll: no stamp, so the all-reduce starts at stamp 3
  EXPECT_EQ(coll[1].begin_s, 1.5);
  EXPECT_EQ(coll[1].end_s, 2.0);
}

TEST(TimelineRecorder, StartedCollectiveNeverWaitedForEndsWithTheIteration) {
  core::TimelineRecorder t(std::make_unique<HalfSecondTimer>(), core::MemorySpace::host);
  t.begin_iteration(0);
  t.add(collective("all_reduce", 8, true));
  t.issued();
  t.end_iteration();  // stamp 3 at 1.5 s; no phase was marked, so no phase is known
  ASSERT_EQ(t.spans().size(), 1u);
  EXPECT_EQ(t.spans()[0].end_s, 1.5);
  EXPECT_EQ(t.spans()[0].phase, "");
}

TEST(TimelineRecorder, RecordsNothingOutsideTimedIterations) {
  core::TimelineRecorder t(std::make_unique<HalfSecondTimer>(), core::MemorySpace::host);
  EXPECT_FALSE(t.recording());
  t.phase("fwd", 0.0, 1.0);  // warm-up
  t.end_iteration();
  EXPECT_TRUE(t.spans().empty());
  t.begin_iteration(0);
  EXPECT_TRUE(t.recording());
  t.end_iteration();
  EXPECT_FALSE(t.recording());
}

TEST(TimelineGather, MedianIterationIsTheLowerMiddleByStepTime) {
  EXPECT_EQ(mpi::median_iteration({0.3, 0.1, 0.2}), 2u);
  EXPECT_EQ(mpi::median_iteration({0.4, 0.1, 0.3, 0.2}), 3u);  // 0.2 and 0.3 in the middle
  EXPECT_EQ(mpi::median_iteration({0.5}), 0u);
  EXPECT_EQ(mpi::median_iteration({0.2, 0.2, 0.2}), 1u);
  EXPECT_THROW(mpi::median_iteration({}), std::invalid_argument);
}

TEST(ChromeTrace, CompleteEventsInMicrosecondsOnACoreAndACommunicationThreadPerRank) {
  trace::TimelineExport measured{"cfg", {}, {0.0, 0.25}};
  measured.spans = {timeline_span(0, 1, SpanKind::phase, "bwd", 0.01, 0.02),
                    timeline_span(1, 0, SpanKind::collective, "all_reduce", 0.005, 0.0075, 1024)};
  trace::TimelineExport predicted{
      "predicted cfg", {timeline_span(0, 0, SpanKind::op, "gemm", 0, 1e-3)}, {}};
  const nlohmann::json doc = nlohmann::json::parse(trace::chrome_trace_json({measured, predicted}));
  std::vector<nlohmann::json> complete;
  std::map<int, std::string> process;
  for (const nlohmann::json& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X") complete.push_back(e);
    if (e.at("name") == "process_name") process[e.at("pid")] = e.at("args").at("name");
  }
  EXPECT_EQ(process, (std::map<int, std::string>{
                         {1, "cfg rank 0"}, {2, "cfg rank 1"}, {3, "predicted cfg rank 0"}}));
  ASSERT_EQ(complete.size(), 3u);
  // iteration 1 starts at 0.25 s: 0.26 s = 260000 us, 10 ms long
  EXPECT_DOUBLE_EQ(complete[0].at("ts").get<double>(), 260000.0);
  EXPECT_DOUBLE_EQ(complete[0].at("dur").get<double>(), 10000.0);
  EXPECT_EQ(complete[0].at("tid"), 1);
  EXPECT_EQ(complete[0].at("cat"), "phase");
  EXPECT_EQ(complete[1].at("pid"), 2);
  EXPECT_EQ(complete[1].at("tid"), 2);
  EXPECT_DOUBLE_EQ(complete[1].at("ts").get<double>(), 5000.0);
  EXPECT_EQ(complete[1].at("args").at("bytes"), 1024);
  EXPECT_EQ(complete[2].at("pid"), 3);
  EXPECT_EQ(complete[2].at("cat"), "op");
  EXPECT_FALSE(complete[2].at("args").contains("bytes"));
}

TEST(ChromeTrace, NamesFromFilesAreEscaped) {
  trace::TimelineExport t{
      "a \"quoted\"\nname\\", {timeline_span(0, 0, SpanKind::phase, "f\"w\td", 0, 1)}, {}};
  const nlohmann::json doc = nlohmann::json::parse(trace::chrome_trace_json({t}));
  EXPECT_EQ(doc.at("traceEvents").at(0).at("args").at("name"), "a \"quoted\"\nname\\ rank 0");
}

}  // namespace
}  // namespace scaletune
