// A step's description as data: the recorder charges events to the phase marked after them (as
// the phase timer charges time), the recording communicator records each collective with the
// counts and message sizes of its definition (nccl-tests' sizes: all_gather and alltoall the
// whole buffer, v-ops the largest block times the ranks), and the detached communicator moves
// nothing. The printed trace folds ranks that repeat the last one printed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness/core/detached_communicator.hpp"
#include "harness/core/recording_communicator.hpp"
#include "harness/trace/step_trace.hpp"
#include "harness/trace/trace_format.hpp"

namespace scaletune {
namespace {

trace::ComputeOp op(const char* name, double flops) {
  trace::ComputeOp o;
  o.op = name;
  o.dtype = "fp32";
  o.flops = flops;
  return o;
}

TEST(Recorder, ChargesEventsToThePhaseMarkedAfterThem) {
  trace::Recorder r;
  r.add(op("ignored", 1));  // not recording yet
  r.begin({"fwd", "bwd", "optimizer"});
  r.add(op("a", 1));
  r.add(op("b", 2));
  r.end_phase(0);
  r.add(op("c", 3));
  r.end_phase(1);
  r.end_phase(1);  // a second mark of the same phase charges nothing new
  r.add(op("d", 4));
  const trace::RankTrace t = r.take();
  ASSERT_EQ(t.events.size(), 4u);
  EXPECT_EQ(t.events[0].compute.op, "a");
  EXPECT_EQ(t.events[0].phase, 0);
  EXPECT_EQ(t.events[1].phase, 0);
  EXPECT_EQ(t.events[2].phase, 1);
  EXPECT_EQ(t.events[3].phase, 1);  // after the last mark: the last phase marked
  EXPECT_FALSE(r.recording());
  EXPECT_THROW(
      {
        r.begin({"only"});
        r.end_phase(1);
      },
      std::out_of_range);
}

TEST(RecordingCommunicator, RecordsEachCollectiveAsItsDefinitionCountsIt) {
  core::DetachedCommunicator detached(1, 4, "mpi", core::MemorySpace::host);
  trace::Recorder r;
  core::RecordingCommunicator comm(detached, r);
  EXPECT_EQ(comm.rank(), 1);
  EXPECT_EQ(comm.size(), 4);
  r.begin({"step"});
  comm.all_reduce(nullptr, nullptr, 1000, core::DType::fp32, core::ReduceOp::sum);
  comm.reduce_scatter(nullptr, nullptr, 10, core::DType::fp32, core::ReduceOp::sum);
  comm.all_gather(nullptr, nullptr, 10, core::DType::fp64);
  comm.all_to_all(nullptr, nullptr, 5, core::DType::fp32);
  const std::vector<std::size_t> send = {1, 2, 3, 4}, recv = {4, 3, 2, 1};
  comm.all_to_allv(nullptr, send, nullptr, recv, core::DType::fp32);
  const std::vector<std::size_t> blocks = {5, 6, 7, 8};
  comm.reduce_scatterv(nullptr, nullptr, blocks, core::DType::fp32, core::ReduceOp::sum);
  comm.all_gatherv(nullptr, nullptr, blocks, core::DType::bf16);
  comm.broadcast(nullptr, nullptr, 7, core::DType::int64, 0);
  comm.start_all_reduce(nullptr, nullptr, 64, core::DType::fp32, core::ReduceOp::sum);
  comm.wait_started();
  comm.barrier();
  comm.synchronize();  // not a collective of the step: no record
  const trace::RankTrace t = r.take();
  const std::vector<trace::Collective> c = trace::collectives_of(t);
  ASSERT_EQ(c.size(), 10u);
  ASSERT_EQ(t.events.size(), 11u);
  EXPECT_EQ(t.events[9].kind, trace::EventKind::wait_started);

  EXPECT_EQ(c[0].op, "all_reduce");
  EXPECT_EQ(c[0].count, 1000);
  EXPECT_EQ(c[0].bytes, 4000);
  EXPECT_EQ(c[0].participants, 4);
  EXPECT_FALSE(c[0].started);
  EXPECT_EQ(c[1].op, "reduce_scatter");
  EXPECT_EQ(c[1].count, 40);  // the send buffer: 4 blocks of 10
  EXPECT_EQ(c[1].bytes, 160);
  EXPECT_EQ(c[2].op, "all_gather");
  EXPECT_EQ(c[2].dtype, "fp64");
  EXPECT_EQ(c[2].count, 10);
  EXPECT_EQ(c[2].bytes, 320);  // the gathered buffer: 40 doubles
  EXPECT_EQ(c[3].op, "alltoall");
  EXPECT_EQ(c[3].count, 20);
  EXPECT_EQ(c[3].bytes, 80);
  EXPECT_EQ(c[4].op, "alltoallv");
  EXPECT_EQ(c[4].count, 10);
  EXPECT_EQ(c[4].bytes, 4 * 4 * 4);  // largest block 4 x 4 peers x 4 bytes
  EXPECT_EQ(c[4].peer_counts, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(c[4].recv_counts, (std::vector<std::int64_t>{4, 3, 2, 1}));
  EXPECT_EQ(c[5].op, "reduce_scatterv");
  EXPECT_EQ(c[5].count, 6);  // rank 1's block
  EXPECT_EQ(c[5].bytes, 8 * 4 * 4);
  EXPECT_EQ(c[6].op, "all_gatherv");
  EXPECT_EQ(c[6].dtype, "bf16");
  EXPECT_EQ(c[6].bytes, 8 * 4 * 2);
  EXPECT_EQ(c[7].op, "broadcast");
  EXPECT_EQ(c[7].bytes, 56);
  EXPECT_EQ(c[8].op, "all_reduce");
  EXPECT_TRUE(c[8].started);
  EXPECT_EQ(c[9].op, "barrier");
  EXPECT_EQ(c[9].bytes, 0);
}

TEST(DetachedCommunicator, MovesNothingAndChecksItsRank) {
  EXPECT_THROW(core::DetachedCommunicator(4, 4, "mpi", core::MemorySpace::host),
               std::invalid_argument);
  EXPECT_THROW(core::DetachedCommunicator(0, 0, "mpi", core::MemorySpace::host),
               std::invalid_argument);
  core::DetachedCommunicator comm(3, 64, "nccl", core::MemorySpace::device);
  EXPECT_EQ(comm.backend(), "nccl");
  EXPECT_EQ(comm.memory_space(), core::MemorySpace::device);
  const auto buffer = comm.allocate(1 << 30);  // a GiB of nothing
  EXPECT_EQ(buffer->data(), nullptr);
  EXPECT_EQ(buffer->bytes(), std::size_t{1} << 30);
  std::vector<std::byte> host(8, std::byte{7});
  buffer->download(host);
  for (const std::byte b : host) EXPECT_EQ(b, std::byte{0});
  const auto timer = comm.timer();
  timer->mark();
  timer->mark();
  timer->mark();
  EXPECT_EQ(timer->intervals(), (std::vector<double>{0.0, 0.0}));
}

TEST(DetachedCommunicator, AnswersHostExchangesFromAnEarlierDescription) {
  // Rank 1 of 3, described after a description in which ranks 0 and 2 sent these.
  const auto bytes_of = [](std::vector<std::int64_t> v) {
    std::vector<std::byte> out(v.size() * 8);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  core::HostExchanges earlier(3);
  earlier[0] = {bytes_of({100}), {}, bytes_of({5, 6})};
  earlier[2] = {bytes_of({300}), {}, bytes_of({7, 8})};
  core::DetachedCommunicator comm(1, 3, "mpi", core::MemorySpace::host, &earlier);
  const std::int64_t mine = 200;
  std::vector<std::int64_t> all(3, -1);
  comm.all_gather(&mine, all.data(), 1, core::DType::int64);
  EXPECT_EQ(all, (std::vector<std::int64_t>{100, 200, 300}));
  comm.all_reduce(nullptr, nullptr, 1 << 20, core::DType::fp32, core::ReduceOp::sum);  // described
  std::vector<std::int64_t> sum = {1, 2};
  comm.all_reduce(sum.data(), sum.data(), 2, core::DType::int64, core::ReduceOp::sum);
  EXPECT_EQ(sum, (std::vector<std::int64_t>{5 + 1 + 7, 6 + 2 + 8}));
  ASSERT_EQ(comm.sends().size(), 3u);
  EXPECT_EQ(comm.sends()[0], bytes_of({200}));
  EXPECT_TRUE(comm.sends()[1].empty());
  EXPECT_EQ(comm.sends()[2], bytes_of({1, 2}));
  std::vector<float> host(4);
  EXPECT_THROW(comm.all_to_all(host.data(), host.data(), 1, core::DType::fp32), std::logic_error);
}

TEST(TraceFormat, FoldsRanksThatRepeatTheLastPrinted) {
  trace::Recorder r;
  r.begin({"fwd", "allreduce"});
  r.add(op("gemm", 2e9));
  r.end_phase(0);
  core::DetachedCommunicator detached(0, 3, "mpi", core::MemorySpace::host);
  core::RecordingCommunicator comm(detached, r);
  comm.all_reduce(nullptr, nullptr, 256, core::DType::fp32, core::ReduceOp::sum);
  r.end_phase(1);
  trace::RankTrace t0 = r.take();
  trace::RankTrace t1 = t0, t2 = t0;
  t1.rank = 1;
  t2.rank = 2;
  t2.events.pop_back();
  const std::string text =
      trace::format_trace("cfg", "host", {t0, t1, t2}, trace::TraceDetail::collectives);
  EXPECT_NE(text.find("# cfg: 3 ranks, host"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1: as rank 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("rank 2: as"), std::string::npos) << text;
  EXPECT_NE(text.find("all_reduce fp32 count=256 bytes=1024 ranks=3"), std::string::npos) << text;
  EXPECT_NE(text.find("1 ops, 2e+09 FLOP"), std::string::npos) << text;
  const std::string ops = trace::format_trace("cfg", "host", {t0}, trace::TraceDetail::ops);
  EXPECT_NE(ops.find("gemm fp32 flops=2e+09"), std::string::npos) << ops;
}

}  // namespace
}  // namespace scaletune
