// The step composed along each rank's critical path, on hand-made traces whose answer follows
// from the definition: a blocking collective starts when the last rank reaches it, started
// all-reduces overlap compute until the wait, and queue on the communication stream.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "autotune/critical_path.hpp"

namespace scaletune::autotune {
namespace {

trace::Event compute(const std::string& name, int phase = 0) {
  trace::Event e;
  e.kind = trace::EventKind::compute;
  e.phase = phase;
  e.compute.op = name;
  return e;
}

trace::Event collective(const std::string& op, int participants, bool started, int phase = 0) {
  trace::Event e;
  e.kind = trace::EventKind::collective;
  e.phase = phase;
  e.collective.op = op;
  e.collective.participants = participants;
  e.collective.started = started;
  return e;
}

trace::Event wait_started(int phase = 0) {
  trace::Event e;
  e.kind = trace::EventKind::wait_started;
  e.phase = phase;
  return e;
}

trace::RankTrace rank(int r, std::vector<trace::Event> events) {
  trace::RankTrace t;
  t.rank = r;
  t.phase_names = {"fwd", "bwd", "optimizer"};
  t.events = std::move(events);
  return t;
}

/// Times by name: ops "a1" takes 1 s, "a3" 3 s, ...; collectives by op name.
const std::map<std::string, double> kTimes = {
    {"a1", 1.0}, {"a3", 3.0}, {"a05", 0.5}, {"all_reduce", 0.5}, {"bucket", 2.0}};
const OpTime kOp = [](const trace::ComputeOp& op) { return kTimes.at(op.op); };
const CollectiveTime kCollective = [](const trace::Collective& c) { return kTimes.at(c.op); };

TEST(ComposeStep, BlockingCollectiveWaitsForTheLastRank) {
  const ComposedStep s =
      compose_step({rank(0, {compute("a1"), collective("all_reduce", 2, false)}),
                    rank(1, {compute("a3"), collective("all_reduce", 2, false), compute("a1")})},
                   kOp, kCollective);
  EXPECT_DOUBLE_EQ(s.step_time_s, 4.5);  // 3 (rank 1 arrives) + 0.5 + 1
  EXPECT_EQ(s.critical_rank, 1);
  EXPECT_DOUBLE_EQ(s.ranks[0].end_s, 3.5);
  EXPECT_DOUBLE_EQ(s.ranks[0].waiting_s, 2.0);
  EXPECT_DOUBLE_EQ(s.ranks[0].exposed_communication_s, 0.5);
  EXPECT_DOUBLE_EQ(s.ranks[1].waiting_s, 0.0);
  EXPECT_DOUBLE_EQ(s.ranks[1].compute_s, 4.0);
  ASSERT_EQ(s.spans.size(), 5u);
  EXPECT_EQ(s.spans[1].kind, trace::SpanKind::collective);
  EXPECT_DOUBLE_EQ(s.spans[1].begin_s, 3.0);
  EXPECT_DOUBLE_EQ(s.spans[1].end_s, 3.5);
}

TEST(ComposeStep, StartedAllReducesOverlapBackwardAndQueue) {
  // bwd: a1, bucket started (2 s), a1, bucket started (2 s), a05, wait, optimizer a05.
  const ComposedStep s =
      compose_step({rank(0, {compute("a1", 1), collective("bucket", 1, true, 1), compute("a1", 1),
                             collective("bucket", 1, true, 1), compute("a05", 1), wait_started(2),
                             compute("a05", 2)})},
                   kOp, kCollective);
  // First bucket 1..3, second queues behind it 3..5 (its rank reached it at 2); compute ends
  // backward at 2.5, waits to 5, then the optimizer to 5.5.
  EXPECT_DOUBLE_EQ(s.step_time_s, 5.5);
  EXPECT_DOUBLE_EQ(s.ranks[0].exposed_communication_s, 2.5);
  EXPECT_DOUBLE_EQ(s.ranks[0].waiting_s, 0.0);
  EXPECT_DOUBLE_EQ(s.ranks[0].phase_s[1], 2.5);
  EXPECT_DOUBLE_EQ(s.ranks[0].phase_s[2], 0.5);
  EXPECT_DOUBLE_EQ(s.spans[3].begin_s, 3.0);  // the second bucket
  EXPECT_DOUBLE_EQ(s.spans[3].end_s, 5.0);
}

TEST(ComposeStep, FullOverlapHidesCommunication) {
  const ComposedStep s =
      compose_step({rank(0, {collective("all_reduce", 1, true), compute("a3"), wait_started()})},
                   kOp, kCollective);
  EXPECT_DOUBLE_EQ(s.step_time_s, 3.0);
  EXPECT_DOUBLE_EQ(s.ranks[0].exposed_communication_s, 0.0);
}

TEST(ComposeStep, RefusesRanksThatDisagree) {
  EXPECT_THROW(compose_step({rank(0, {collective("all_reduce", 2, false)}),
                             rank(1, {collective("bucket", 2, false)})},
                            kOp, kCollective),
               std::invalid_argument);
  EXPECT_THROW(
      compose_step({rank(0, {collective("all_reduce", 2, false)}), rank(1, {})}, kOp, kCollective),
      std::invalid_argument);
  EXPECT_THROW(compose_step({rank(0, {collective("all_reduce", 3, false)})}, kOp, kCollective),
               std::invalid_argument);
  const OpTime negative = [](const trace::ComputeOp&) { return -1.0; };
  EXPECT_THROW(compose_step({rank(0, {compute("a1")})}, negative, kCollective),
               std::invalid_argument);
}

TEST(ComposeAlikeStep, EqualsComposingEveryCopy) {
  // Buckets started during backward, a wait, a blocking all-reduce and compute after it.
  const auto events = [](int ranks) {
    return std::vector<trace::Event>{compute("a1", 0),
                                     compute("a3", 1),
                                     collective("bucket", ranks, true, 1),
                                     compute("a05", 1),
                                     collective("bucket", ranks, true, 1),
                                     wait_started(1),
                                     collective("all_reduce", ranks, false, 2),
                                     compute("a1", 2)};
  };
  for (const int ranks : {1, 2, 5}) {
    std::vector<trace::RankTrace> copies;
    for (int r = 0; r < ranks; ++r) copies.push_back(rank(r, events(ranks)));
    const ComposedStep all = compose_step(copies, kOp, kCollective);
    const ComposedStep once = compose_alike_step(copies.front(), ranks, kOp, kCollective);
    EXPECT_DOUBLE_EQ(once.step_time_s, all.step_time_s) << ranks;
    EXPECT_EQ(once.critical_rank, all.critical_rank);
    ASSERT_EQ(once.ranks.size(), all.ranks.size());
    for (std::size_t r = 0; r < all.ranks.size(); ++r) {
      EXPECT_DOUBLE_EQ(once.ranks[r].end_s, all.ranks[r].end_s);
      EXPECT_DOUBLE_EQ(once.ranks[r].compute_s, all.ranks[r].compute_s);
      EXPECT_DOUBLE_EQ(once.ranks[r].exposed_communication_s, all.ranks[r].exposed_communication_s);
      EXPECT_DOUBLE_EQ(once.ranks[r].waiting_s, all.ranks[r].waiting_s);
      EXPECT_EQ(once.ranks[r].phase_s, all.ranks[r].phase_s);
    }
    ASSERT_EQ(once.spans.size(), events(ranks).size() - 1);  // rank 0's: all but the wait
    for (std::size_t i = 0; i < once.spans.size(); ++i) {
      EXPECT_EQ(once.spans[i].rank, 0);
      EXPECT_EQ(once.spans[i].name, all.spans[i].name);
      EXPECT_DOUBLE_EQ(once.spans[i].begin_s, all.spans[i].begin_s);
      EXPECT_DOUBLE_EQ(once.spans[i].end_s, all.spans[i].end_s);
    }
  }
  // The hand-worked answer on 2 ranks: 1 + 3, buckets 4..6 and 6..8 under 0.5 of compute, the
  // wait until 8, the all-reduce 8..8.5, then 1.
  EXPECT_DOUBLE_EQ(compose_alike_step(rank(0, events(2)), 2, kOp, kCollective).step_time_s, 9.5);
}

TEST(ComposeAlikeStep, RefusesOtherParticipantsAndNoRanks) {
  const trace::RankTrace two = rank(0, {collective("all_reduce", 2, false)});
  EXPECT_THROW(compose_alike_step(two, 3, kOp, kCollective), std::invalid_argument);
  EXPECT_THROW(compose_alike_step(two, 0, kOp, kCollective), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::autotune
