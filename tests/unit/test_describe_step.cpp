// A step described on the describing backend and a detached communicator, held to published
// numbers and to the workloads' own accounting: ResNet-50 v1.5 at 224x224 describes 53
// convolutions and about 4.1 GMACs per image forward, and all-reduces exactly its 25,557,032
// gradients; DLRM's described lookups and reuse histograms are those a host-built workload
// counts; the transformer's Adam updates cover its parameters; nothing of the model is
// allocated, so a table of 10^9 rows is described on any machine; a rank count of 64 needs no
// peers.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/detached_communicator.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "kernels/describe/describing_backend.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::kernels::describe {
namespace {

struct Described {
  job::JobSpec job;
  std::vector<job::Config> configs;
  core::WorkloadRegistry registry;
  const core::WorkloadEntry& entry() const { return registry.entry(job.workload.kind); }
};

std::unique_ptr<Described> read(const std::string& toml) {
  auto d = std::make_unique<Described>();
  d->job = job::parse_job_text(toml, "describe-test.toml");
  d->configs = job::expand_sweep(d->job);
  register_workloads(d->registry);
  return d;
}

double sum_flops(const trace::RankTrace& t, const std::string& op) {
  double sum = 0.0;
  for (const trace::Event& e : t.events)
    if (e.kind == trace::EventKind::compute && e.compute.op == op) sum += e.compute.flops;
  return sum;
}

std::size_t count_ops(const trace::RankTrace& t, const std::string& op) {
  return static_cast<std::size_t>(std::count_if(t.events.begin(), t.events.end(), [&](auto& e) {
    return e.kind == trace::EventKind::compute && e.compute.op == op;
  }));
}

std::int64_t field(const trace::ComputeOp& op, const std::string& name) {
  for (const trace::ShapeField& f : op.shape)
    if (f.name == name) return f.value;
  ADD_FAILURE() << op.op << " has no field " << name;
  return -1;
}

TEST(DescribeStep, ResNet50MatchesPublishedMacsAndParameters) {
  const auto d = read(R"(
[job]
name = "r50"
[workload]
kind = "resnet50"
[sweep]
ranks = [2]
global_batch = [8]
[comm]
bucket_mib = 25
)");
  const trace::RankTrace t =
      describe_step(d->job, d->configs.at(0), 1, core::DeviceKind::host, d->entry());
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.ranks, 2);
  EXPECT_EQ(count_ops(t, "conv2d_forward"), 53u);
  EXPECT_EQ(count_ops(t, "conv2d_backward"), 53u);
  EXPECT_EQ(count_ops(t, "batch_norm_forward"), 53u);
  EXPECT_EQ(count_ops(t, "linear_forward"), 1u);
  const int batch = 4;
  const double macs =
      (sum_flops(t, "conv2d_forward") + sum_flops(t, "linear_forward")) / 2.0 / batch;
  EXPECT_NEAR(macs, 4.1e9, 0.05 * 4.1e9);  // DESIGN.md: about 4.1 GMACs per 224x224 image
  std::int64_t reduced = 0;
  for (const trace::Collective& c : trace::collectives_of(t)) {
    EXPECT_EQ(c.op, "all_reduce");
    EXPECT_EQ(c.participants, 2);
    reduced += c.count;
  }
  EXPECT_EQ(reduced, 25'557'032);  // every gradient once
  EXPECT_GT(t.memory_peak_bytes, 4 * 25'557'032);
}

constexpr const char* kDlrm = R"(
[job]
name = "d"
[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [16, 8]
top_mlp = [16, 1]
index_distribution = "zipf:1.05"
bag_size = "poisson"
[[workload.tables]]
name = "a"
rows = 5000
dim = 8
pooling = 3
[[workload.tables]]
name = "b"
rows = 40
dim = 8
pooling = 5
[sweep]
ranks = [2]
global_batch = [64]
sharding = ["table_wise"]
)";

/// A small ResNet-50 job of 12 samples on 3 ranks split as `split`, with [devices] lines.
std::unique_ptr<Described> small_resnet(const std::string& split, const std::string& devices) {
  return read(R"(
[job]
name = "alike"
[workload]
kind = "resnet50"
image_size = 32
width = 0.25
[sweep]
ranks = [3]
global_batch = [12]
batch_split = [)" +
              split +
              R"(]
[devices]
)" + devices);
}

TEST(DescribeStep, AlikeResNetRanksDescribeAsEveryRank) {
  for (const std::string& devices : {std::string(), std::string("memory_gib = [2, 2, 2]\n")}) {
    const auto d = small_resnet("\"even\"", devices);
    const job::Config& config = d->configs.at(0);
    ASSERT_TRUE(d->entry().ranks_alike(d->job, config)) << devices;
    const std::vector<trace::RankTrace> every =
        describe_ranks(d->job, config, core::DeviceKind::host, d->entry());
    const trace::RankTrace once =
        describe_alike_ranks(d->job, config, core::DeviceKind::host, d->entry());
    ASSERT_GT(every.front().events.size(), 100u);
    for (const trace::RankTrace& t : every) {  // the naive reference: every rank described
      EXPECT_EQ(t.events, once.events) << "rank " << t.rank;
      EXPECT_EQ(t.memory_peak_bytes, once.memory_peak_bytes);
      EXPECT_EQ(t.phase_names, once.phase_names);
    }
    EXPECT_EQ(once.rank, 0);
    EXPECT_EQ(once.ranks, 3);
  }
}

TEST(DescribeStep, UnevenBatchesOrMemoriesAreNotAlike) {
  const auto uneven = small_resnet("[2, 1, 1]", "");  // 6, 3 and 3 samples
  EXPECT_FALSE(uneven->entry().ranks_alike(uneven->job, uneven->configs.at(0)));
  const std::vector<trace::RankTrace> every =
      describe_ranks(uneven->job, uneven->configs.at(0), core::DeviceKind::host, uneven->entry());
  EXPECT_NE(every.front().events, every.back().events);  // so they must not be taken as alike
  const auto memories = small_resnet("\"even\"", "memory_gib = [2, 2, 4]\n");
  EXPECT_FALSE(memories->entry().ranks_alike(memories->job, memories->configs.at(0)));
}

TEST(DescribeStep, DlrmLookupsAreTheWorkloadsOwn) {
  const auto d = read(kDlrm);
  const job::Config& config = d->configs.at(0);
  for (int rank = 0; rank < 2; ++rank) {
    const trace::RankTrace t =
        describe_step(d->job, config, rank, core::DeviceKind::host, d->entry());
    // The same rank built on the host backend counts its own lookups (core::TableRankStats).
    core::DetachedCommunicator comm(rank, 2, "mpi", core::MemorySpace::host);
    const core::RankContext ctx = core::rank_context(d->job, config, comm);
    const auto host = d->entry().factory(d->job.workload, config, ctx);
    // A named copy: by_lookups points into it (into the temporary of a range-for over
    // table_stats() it pointed at freed memory once the loop ended).
    const std::vector<core::TableRankStats> stats = host->table_stats();
    std::map<std::int64_t, const core::TableRankStats*> by_lookups;
    for (const core::TableRankStats& s : stats)
      if (s.lookups > 0) by_lookups[s.lookups] = &s;
    std::size_t bags = 0;
    for (const trace::Event& e : t.events) {
      if (e.kind != trace::EventKind::compute || e.compute.op != "embedding_bag_forward") continue;
      ++bags;
      const auto it = by_lookups.find(field(e.compute, "lookups"));
      ASSERT_NE(it, by_lookups.end()) << trace::describe(e.compute);
      ASSERT_EQ(e.compute.reuse_histogram.size(), 17u);
      for (std::size_t b = 0; b < 17; ++b)
        EXPECT_DOUBLE_EQ(e.compute.reuse_histogram[b], it->second->reuse_histogram[b]);
      EXPECT_EQ(field(e.compute, "batch"), 64);  // a table-wise shard serves the global batch
    }
    EXPECT_EQ(bags, by_lookups.size()) << "rank " << rank;
  }
}

TEST(DescribeStep, AllocatesNothingOfTheModel) {
  const auto d = read(R"(
[job]
name = "huge"
[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [16, 64]
top_mlp = [16, 1]
[[workload.tables]]
name = "huge"
rows = 1000000000
dim = 64
pooling = 2
[sweep]
ranks = [64]
global_batch = [4096]
sharding = ["row_wise"]
)");
  const trace::RankTrace t =
      describe_step(d->job, d->configs.at(0), 63, core::DeviceKind::cuda, d->entry());
  // 10^9 x 64 fp32 rows over 64 ranks: 4 GB of table on this rank, never allocated.
  EXPECT_GE(t.memory_peak_bytes, std::int64_t{1'000'000'000} / 64 * 64 * 4);
  const std::vector<trace::Collective> c = trace::collectives_of(t);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front().participants, 64);
}

TEST(DescribeStep, TransformerAdamCoversItsParameters) {
  const auto d = read(R"(
[job]
name = "gpt"
[workload]
kind = "transformer"
layers = 3
hidden = 32
heads = 4
seq_len = 16
vocab = 100
[sweep]
ranks = [2]
global_batch = [4]
state_sharding = ["replicated", "zero3"]
)");
  for (const job::Config& config : d->configs) {
    SCOPED_TRACE(config.id);
    const trace::RankTrace t = describe_step(d->job, config, 0, core::DeviceKind::host, d->entry());
    EXPECT_EQ(count_ops(t, "attention_forward"), 3u);  // one micro-batch: one per layer
    core::DetachedCommunicator comm(0, 2, "mpi", core::MemorySpace::host);
    const core::RankContext ctx = core::rank_context(d->job, config, comm);
    const double params = d->entry().factory(d->job.workload, config, ctx)->params();
    double updated = 0.0;
    for (const trace::Event& e : t.events)
      if (e.kind == trace::EventKind::compute && e.compute.op == "adam")
        updated += static_cast<double>(field(e.compute, "numel"));
    // replicated: every rank updates all; zero3: its shard, about half on 2 ranks
    if (config.id.find("zero3") == std::string::npos)
      EXPECT_EQ(updated, params);
    else
      EXPECT_NEAR(updated, params / 2.0, 0.01 * params);
  }
}

TEST(DescribingBackend, KeepsIntegerUploadsAndReadsZerosOtherwise) {
  trace::Recorder recorder;
  DescribingBackend backend(core::DeviceKind::cuda, recorder);
  EXPECT_TRUE(backend.computes_in(ops::DType::bf16));
  EXPECT_EQ(backend.memory_space(), core::MemorySpace::device);
  const ops::Buffer a = backend.allocate(std::size_t{1} << 40, "a TiB");  // nothing allocated
  const ops::Buffer b = backend.allocate(64, "b");
  EXPECT_NE(a.data(), b.data());
  const ops::Tensor ids = b.tensor(ops::DType::int64, {4});
  const std::vector<std::int64_t> values = {3, 1, 4, 1};
  backend.upload(ids, std::as_bytes(std::span<const std::int64_t>(values)));
  std::vector<std::int64_t> back(4, -1);
  backend.download(ids, std::as_writable_bytes(std::span<std::int64_t>(back)));
  EXPECT_EQ(back, values);
  const ops::Tensor floats = a.tensor(ops::DType::fp32, {2});
  std::vector<float> zeros(2, 9.0f);
  backend.download(floats, std::as_writable_bytes(std::span<float>(zeros)));
  EXPECT_EQ(zeros, (std::vector<float>{0.0f, 0.0f}));
  recorder.begin({"step"});
  backend.gemm(false, true, 1.0f, a.tensor(ops::DType::bf16, {128, 64}),
               a.tensor(ops::DType::bf16, {32, 64}), 0.0f, a.tensor(ops::DType::fp32, {128, 32}));
  const trace::RankTrace t = recorder.take();
  ASSERT_EQ(t.events.size(), 1u);
  const trace::ComputeOp& g = t.events[0].compute;
  EXPECT_EQ(g.op, "gemm");
  EXPECT_EQ(g.dtype, "bf16");
  EXPECT_EQ(field(g, "m"), 128);
  EXPECT_EQ(field(g, "n"), 32);
  EXPECT_EQ(field(g, "k"), 64);
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 128 * 32 * 64);
  EXPECT_DOUBLE_EQ(g.bytes, (128.0 * 64 + 64 * 32) * 2 + 128.0 * 32 * 4);
}

}  // namespace
}  // namespace scaletune::kernels::describe
