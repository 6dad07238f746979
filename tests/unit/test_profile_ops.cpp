// The op profile's pieces: every op a described step records can be made runnable and runs on
// the host backend (so `profile --jobs` can time any job), the default grid covers every op
// kind there is and only those, and /ops reads back as written.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "harness/core/host_device.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/results/result_file.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/profile/op_grid.hpp"
#include "kernels/profile/op_invocation.hpp"
#include "kernels/profile/op_profile.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::kernels::profile {
namespace {

/// Every distinct op of the described steps of a small job of each workload.
std::vector<trace::ComputeOp> described_ops() {
  const char* jobs[] = {R"(
[job]
name = "r"
[workload]
kind = "resnet50"
image_size = 32
width = 0.125
num_classes = 10
[sweep]
ranks = [2]
global_batch = [4]
)",
                        R"(
[job]
name = "d"
[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [8, 4]
top_mlp = [8, 1]
embedding_optimizer = "rowwise_adagrad"
[[workload.tables]]
name = "a"
rows = 100
dim = 4
pooling = 2
[[workload.tables]]
name = "b"
rows = 10
dim = 4
pooling = 1
[sweep]
ranks = [2]
global_batch = [8]
sharding = ["data_parallel", "row_wise"]
)",
                        R"(
[job]
name = "t"
[workload]
kind = "transformer"
layers = 1
hidden = 8
heads = 2
seq_len = 4
vocab = 16
[sweep]
ranks = [1]
global_batch = [2]
)"};
  core::WorkloadRegistry registry;
  register_workloads(registry);
  std::vector<trace::ComputeOp> out;
  std::set<std::string> seen;
  for (const char* text : jobs) {
    const job::JobSpec job = job::parse_job_text(text, "profile-test.toml");
    for (const job::Config& config : job::expand_sweep(job))
      for (const trace::RankTrace& t : describe::describe_ranks(job, config, core::DeviceKind::host,
                                                                registry.entry(job.workload.kind)))
        for (const trace::Event& e : t.events)
          if (e.kind == trace::EventKind::compute &&
              seen.insert(e.compute.op + trace::shape_text(e.compute.shape)).second)
            out.push_back(e.compute);
  }
  return out;
}

TEST(OpInvocation, RunsEveryOpADescribedStepRecords) {
  HostBackend backend;
  core::HostDevice device;
  const std::vector<trace::ComputeOp> ops = described_ops();
  std::set<std::string> kinds;
  for (const trace::ComputeOp& op : ops) kinds.insert(op.op);
  EXPECT_GE(kinds.size(), 30u);  // the three workloads use most of the op layer
  const std::vector<OpSample> samples = profile_ops(backend, device, ops,
                                                    {.min_calls = 1,
                                                     .max_calls = 1,
                                                     .min_seconds = 0,
                                                     .max_seconds = 0,
                                                     .rounds = 1,
                                                     .before_op = {}},
                                                    {});
  for (const OpSample& s : samples) {
    EXPECT_TRUE(s.error.empty()) << trace::describe(s.record) << ": " << s.error;
    EXPECT_GT(s.time_s, 0.0) << trace::describe(s.record);
    EXPECT_EQ(s.record.flops, ops[&s - samples.data()].flops);  // the same record, timed
  }
}

TEST(OpGrid, CoversEveryInvocableOpKindAndNoOther) {
  const std::vector<std::string> invocable = invocable_ops();
  const std::set<std::string> known(invocable.begin(), invocable.end());
  std::set<std::string> gridded;
  for (const trace::ComputeOp& op : default_op_grid(core::DeviceKind::host)) {
    EXPECT_TRUE(known.contains(op.op)) << op.op;
    EXPECT_GT(op.bytes, 0.0) << trace::describe(op);
    gridded.insert(op.op);
  }
  EXPECT_EQ(gridded, known);
}

TEST(OpInvocation, RefusesUnknownKindsAndMissingFields) {
  HostBackend backend;
  ops::MemoryLedger ledger(backend);
  trace::ComputeOp op;
  op.op = "warp_drive";
  op.dtype = "fp32";
  EXPECT_THROW(make_invocation(backend, ledger, op, 1), std::invalid_argument);
  op.op = "gemm";
  op.shape = {{"m", 4}, {"n", 4}};
  EXPECT_THROW(make_invocation(backend, ledger, op, 1), std::invalid_argument);
}

TEST(OpTable, ReadsBackAsWritten) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "scaletune_ops_test.h5").string();
  std::filesystem::remove(path);
  results::OpTiming a{
      "gemm", "fp32", "host-core:0", 0, "m=4 n=8 k=16 batch=1 trans_a=0 trans_b=1", 1.5e-6, 1e-7,
      25,     1024,   768,           {}};
  results::OpTiming b{"embedding_bag_forward",
                      "bf16",
                      "cuda:0 NVIDIA H200",
                      1,
                      "batch=2 rows=9",
                      2e-5,
                      0,
                      5,
                      10,
                      20,
                      {}};
  b.reuse[0] = 0.75;
  b.reuse[16] = 0.25;
  {
    results::ResultWriter w = results::ResultWriter::create(path, {}, {});
    w.write_ops({a, b});
    EXPECT_THROW(w.write_ops({a}), results::ResultError);  // /ops is written once
  }
  const results::ResultSet r = results::read_results(path);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[0].shape, a.shape);
  EXPECT_EQ(r.ops[0].repeats, 25);
  EXPECT_DOUBLE_EQ(r.ops[0].time_s, 1.5e-6);
  EXPECT_EQ(r.ops[1].device, b.device);
  EXPECT_EQ(r.ops[1].reuse, b.reuse);
  EXPECT_EQ(trace::parse_shape_text(a.shape).at(5).value, 1);
  EXPECT_THROW(trace::parse_shape_text("m=4 n"), std::invalid_argument);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace scaletune::kernels::profile
