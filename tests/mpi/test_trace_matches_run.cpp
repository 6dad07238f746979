// Under mpirun: the collectives of a described step (scaletune trace: describing backend,
// detached communicator) are exactly those a real step issues on MPI, seen through a recording
// communicator: op, element type, counts (per peer for the v-ops), participants, started or
// blocking, the waits for started ones, their order and their phase. For every workload and,
// for DLRM, every sharding plan (built-in, greedy, hand-made; equal and unequal batches), for the
// transformer every state sharding, for ResNet-50 with and without synchronised batch norm and
// gradient overlap.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/phase_timer.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/core/recording_communicator.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "harness/trace/step_trace.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/workloads.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

using test::world_size;

/// `text` with every `name` replaced by `value`.
std::string replaced(std::string text, const std::string& name, const std::string& value) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name))
    text.replace(at, name.size(), value);
  return text;
}

/// `text` with "WORLD" replaced by the world size, "WEIGHTS" by unequal batch weights of that
/// many ranks ("3,1", "3,1,2", "3,1,2,2") and "MEMORY" by per-rank memory in GiB, the last
/// rank's small ("1.0, 0.035", "1.0, 1.0, 0.035").
std::string at_world(const std::string& text) {
  const int n = world_size();
  std::string weights = "3", memory;
  for (int r = 1; r < n; ++r) weights += r == 1 ? ",1" : ",2";
  for (int r = 0; r + 1 < n; ++r) memory += "1.0, ";
  return replaced(replaced(replaced(text, "WORLD", std::to_string(n)), "WEIGHTS", weights),
                  "MEMORY", memory + "0.035");
}

/// The events of `t` other than compute ops (collectives and waits), with their phases.
std::vector<trace::Event> communication(const trace::RankTrace& t) {
  std::vector<trace::Event> out;
  for (const trace::Event& e : t.events)
    if (e.kind != trace::EventKind::compute) out.push_back(e);
  return out;
}

/// One real step of this rank (after one warm-up step) on MPI, recorded.
trace::RankTrace run_recorded(const job::JobSpec& job, const job::Config& config,
                              const core::WorkloadEntry& entry) {
  MpiCommunicator mpi(MPI_COMM_WORLD);
  trace::Recorder recorder;
  core::RecordingCommunicator comm(mpi, recorder);
  core::RankContext ctx = core::rank_context(job, config, comm);
  ctx.memory_budget_bytes = core::configured_memory_bytes(job.devices, comm.rank());
  const std::unique_ptr<core::Workload> workload = entry.factory(job.workload, config, ctx);
  core::PhaseTimer timer(workload->phase_names(), 1, [] { Kokkos::fence(); });
  timer.set_mark_observer([&recorder](std::size_t phase) { recorder.end_phase(phase); });
  workload->step(timer);
  recorder.begin(workload->phase_names());
  workload->step(timer);
  return recorder.take();
}

/// For every configuration of the job text: the described step's communication equals the run's.
void expect_described_as_run(const std::string& toml) {
  const job::JobSpec job = job::parse_job_text(at_world(toml), "trace-test.toml");
  core::WorkloadRegistry registry;
  kernels::register_workloads(registry);
  const core::WorkloadEntry& entry = registry.entry(job.workload.kind);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::vector<job::Config> configs = job::expand_sweep(job);
  ASSERT_FALSE(configs.empty());
  for (const job::Config& config : configs) {
    SCOPED_TRACE(config.id);
    const trace::RankTrace ran = run_recorded(job, config, entry);
    const trace::RankTrace described =
        kernels::describe::describe_step(job, config, rank, core::DeviceKind::host, entry);
    const std::vector<trace::Event> want = communication(ran);
    const std::vector<trace::Event> got = communication(described);
    EXPECT_FALSE(want.empty());
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].kind, want[i].kind) << "event " << i;
      EXPECT_EQ(got[i].phase, want[i].phase) << "event " << i;
      EXPECT_EQ(got[i].collective, want[i].collective)
          << "event " << i << ": described " << trace::describe(got[i].collective) << ", ran "
          << trace::describe(want[i].collective);
    }
    EXPECT_EQ(described.phase_names, ran.phase_names);
  }
}

TEST(TraceMatchesRun, ResNet50WithAndWithoutOverlapAndSyncBatchNorm) {
  for (const char* overlap : {"true", "false"})
    for (const char* sync : {"true", "false"}) {
      SCOPED_TRACE(std::string("overlap ") + overlap + ", sync_batch_norm " + sync);
      expect_described_as_run(std::string(R"(
[job]
name = "trace-resnet50"
[workload]
kind = "resnet50"
image_size = 32
width = 0.25
num_classes = 10
sync_batch_norm = )") + sync + R"(
[sweep]
ranks = [WORLD]
global_batch = [WORLD]
[comm]
backend = "mpi"
bucket_mib = 0.05
overlap = )" + overlap + "\n");
    }
}

constexpr const char* kDlrm = R"(
[job]
name = "trace-dlrm"
[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [16, 8]
top_mlp = [16, 1]
index_distribution = "zipf:1.05"
bag_size = "poisson"
embedding_optimizer = "rowwise_adagrad"
[[workload.tables]]
name = "a"
rows = 5000
dim = 8
pooling = 3
[[workload.tables]]
name = "b"
rows = 40
dim = 8
pooling = 1
[[workload.tables]]
name = "c"
rows = 2000
dim = 8
pooling = 6
[[workload.tables]]
name = "d"
rows = 300
dim = 8
pooling = 2
[workload.plans.hand_made]
a = { split = "row_wise", ranks = [0, 1] }
b = { split = "data_parallel" }
c = { split = "column_wise", ranks = [1, 0] }
d = { split = "table_wise", ranks = [1] }
[sweep]
ranks = [WORLD]
global_batch = [12]
batch_split = ["even", [WEIGHTS]]
sharding = ["data_parallel", "table_wise", "table_wise:size_greedy", "table_wise:lookup_greedy",
            "row_wise", "column_wise", "hand_made"]
[comm]
backend = "mpi"
bucket_mib = 0.001
)";

TEST(TraceMatchesRun, DlrmEveryShardingPlanAndSplit) {
  expect_described_as_run(kDlrm);
}

TEST(TraceMatchesRun, TransformerEveryStateSharding) {
  expect_described_as_run(R"(
[job]
name = "trace-transformer"
[workload]
kind = "transformer"
layers = 2
hidden = 16
heads = 2
seq_len = 8
vocab = 64
ffn_mult = 2
[sweep]
ranks = [WORLD]
global_batch = [6]
state_sharding = ["replicated", "zero1", "zero2", "zero3", "zero3:memory_proportional"]
[comm]
backend = "mpi"
bucket_mib = 0.01
)");
}

// The last rank's memory forces it into micro-batches (the plan gathers every rank's budget):
// the description must plan as the run does.
TEST(TraceMatchesRun, TransformerMicroBatchesUnderAMemoryLimit) {
  expect_described_as_run(R"(
[job]
name = "trace-transformer-memory"
[workload]
kind = "transformer"
layers = 4
hidden = 128
heads = 4
seq_len = 64
vocab = 2048
[sweep]
ranks = [WORLD]
global_batch = [24]
state_sharding = ["replicated", "zero2", "auto"]
[devices]
memory_gib = [MEMORY]
[comm]
backend = "mpi"
)");
}

}  // namespace
}  // namespace scaletune::mpi
