// Under mpirun: one launch runs every configuration with ranks <= world size on the first
// `ranks` ranks, records the rest as skipped, and turns failures into statuses while the
// sweep goes on; a rank's unusable device (core::FatalDeviceError) is recorded and stops it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <filesystem>
#include <new>
#include <sstream>
#include <thread>

#include "harness/core/fatal_device_error.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/batch_split.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/result_file.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::mpi {
namespace {

using results::Status;

std::vector<std::string>& participated() {
  static std::vector<std::string> ids;
  return ids;
}

// A workload that records which configurations this rank took part in and sleeps `sleep_ms`
// per step; with `fail` set it throws at construction on the last rank of the configuration.
class ProbeWorkload final : public core::Workload {
 public:
  ProbeWorkload(const job::Config& c, const core::RankContext& ctx, int sleep_ms)
      : m_comm(ctx.comm), m_sleep_ms(sleep_ms) {
    participated().push_back(c.id);
  }
  std::vector<std::string> phase_names() const override { return {"fwd", "allreduce"}; }
  void step(core::PhaseTimer& timer) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(m_sleep_ms));
    timer.mark(0);
    double x = 1;
    m_comm->all_reduce_sum(std::span<double>(&x, 1));
    timer.mark(1);
  }
  double params() const override { return 10; }
  double flops_per_sample() const override { return 20; }
  std::int64_t memory_peak_bytes() const override { return 1000 + m_comm->rank(); }

 private:
  core::Communicator* m_comm;
  int m_sleep_ms;
};

// A workload whose "peak memory" is the memory budget the harness gave its rank, so the result
// file shows which devices.memory_gib value each rank got.
class BudgetWorkload final : public core::Workload {
 public:
  explicit BudgetWorkload(const core::RankContext& ctx) : m_budget(ctx.memory_budget_bytes) {}
  std::vector<std::string> phase_names() const override { return {"fwd"}; }
  void step(core::PhaseTimer& timer) override { timer.mark(0); }
  double params() const override { return 1; }
  double flops_per_sample() const override { return 1; }
  std::int64_t memory_peak_bytes() const override { return m_budget; }

 private:
  std::int64_t m_budget;
};

// As ProbeWorkload, but on the last rank of the configuration the second step ends with an
// exception (after the step's collective, so no rank is left waiting in it): with `fatal` a
// core::FatalDeviceError, as a sticky CUDA error would, else a std::runtime_error.
class LateFailureWorkload final : public core::Workload {
 public:
  LateFailureWorkload(const job::Config& c, const core::RankContext& ctx, bool fatal)
      : m_comm(ctx.comm), m_fatal(fatal) {
    participated().push_back(c.id);
  }
  std::vector<std::string> phase_names() const override { return {"fwd"}; }
  void step(core::PhaseTimer& timer) override {
    double x = 1;
    m_comm->all_reduce_sum(std::span<double>(&x, 1));
    timer.mark(0);
    if (++m_steps != 2 || m_comm->rank() != m_comm->size() - 1) return;
    if (m_fatal)
      throw core::FatalDeviceError("cudaStreamSynchronize(stream) failed: an illegal address");
    throw std::runtime_error("deliberate failure after the step's all-reduce");
  }
  double params() const override { return 1; }
  double flops_per_sample() const override { return 1; }
  std::int64_t memory_peak_bytes() const override { return 1; }

 private:
  core::Communicator* m_comm;
  bool m_fatal;
  int m_steps = 0;
};

// The test workloads, by kind.
const core::WorkloadRegistry& test_workloads() {
  static const core::WorkloadRegistry registry = [] {
    core::WorkloadRegistry r;
    kernels::register_workloads(r);  // resnet50, for the host precision check
    r.add("probe",
          [](const job::WorkloadSpec&, const job::Config& c, const core::RankContext& ctx) {
            return std::make_unique<ProbeWorkload>(c, ctx, 1);
          });
    r.add("slow", [](const job::WorkloadSpec&, const job::Config& c, const core::RankContext& ctx) {
      return std::make_unique<ProbeWorkload>(c, ctx, 60);
    });
    r.add("budget", [](const job::WorkloadSpec&, const job::Config&, const core::RankContext& ctx) {
      return std::make_unique<BudgetWorkload>(ctx);
    });
    r.add("oom",
          [](const job::WorkloadSpec&, const job::Config&, const core::RankContext&)
              -> std::unique_ptr<core::Workload> { throw std::bad_alloc(); });
    r.add("kokkos_oom",
          [](const job::WorkloadSpec&, const job::Config&,
             const core::RankContext&) -> std::unique_ptr<core::Workload> {
            const Kokkos::View<float*, Kokkos::HostSpace> huge("huge", std::size_t(1)
                                                                           << 44);  // 64 TiB
            throw std::logic_error("allocated 64 TiB");
          });
    r.add("device_loss",
          [](const job::WorkloadSpec&, const job::Config& c, const core::RankContext& ctx) {
            return std::make_unique<LateFailureWorkload>(c, ctx, true);
          });
    r.add("late_failure",
          [](const job::WorkloadSpec&, const job::Config& c, const core::RankContext& ctx) {
            return std::make_unique<LateFailureWorkload>(c, ctx, false);
          });
    r.add("fail_last",
          [](const job::WorkloadSpec&, const job::Config& c, const core::RankContext& ctx) {
            if (ctx.comm->rank() == ctx.comm->size() - 1)
              throw std::runtime_error("deliberate failure");
            return std::make_unique<ProbeWorkload>(c, ctx, 1);
          });
    return r;
  }();
  return registry;
}

job::Config config(const std::string& kind, int ranks) {
  job::Config c;
  c.workload = kind;
  c.ranks = ranks;
  c.global_batch = 12;
  c.per_rank_batch =
      job::weighted_split(12, std::vector<double>(static_cast<std::size_t>(ranks), 1.0));
  c.batch_split = "even";
  c.precision = job::DataType::fp32;
  c.id = kind + "-r" + std::to_string(ranks);
  return c;
}

struct Sweep {
  SweepSummary summary;
  std::string path;
  std::string progress;
};

Sweep run(const std::vector<job::Config>& configs, double timeout_s, const std::string& name,
          const std::vector<double>& memory_gib = {}) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  job::JobSpec spec;
  spec.devices.memory_gib = memory_gib;
  spec.toml_text = "# test job";
  spec.run.warmup = 1;
  spec.run.iterations = 3;
  spec.run.timeout_s = timeout_s;
  SweepOptions options;
  options.out_path =
      testing::TempDir() + "/scaletune_" + name + "_np" + std::to_string(size) + ".h5";
  options.blas = "test";
  const ConfigKinds kinds(test_workloads());
  options.kinds = &kinds;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::filesystem::remove(options.out_path);  // a sweep never overwrites a file
  MPI_Barrier(MPI_COMM_WORLD);
  std::ostringstream progress;
  Sweep s{run_sweep(spec, configs, options, MPI_COMM_WORLD, progress), options.out_path, ""};
  s.progress = progress.str();
  return s;
}

TEST(SweepRunner, RunsEachConfigurationOnTheFirstRanksAndSkipsLargerOnes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  participated().clear();
  std::vector<job::Config> configs;
  for (int r = 1; r <= 4; ++r) configs.push_back(config("probe", r));
  const Sweep s = run(configs, 60, "probe");

  std::vector<std::string> expected;  // naive: rank `rank` takes part when rank < ranks <= size
  for (int r = 1; r <= 4; ++r)
    if (rank < r && r <= size) expected.push_back("probe-r" + std::to_string(r));
  EXPECT_EQ(participated(), expected);
  EXPECT_EQ(s.summary.ok, std::min(4, size));
  EXPECT_EQ(s.summary.skipped, 4 - std::min(4, size));
  if (rank != 0) return;
  const auto file = results::read_results(s.path);
  ASSERT_EQ(file.configs.size(), 4u);
  ASSERT_TRUE(file.system.has_value());
  for (const auto& c : file.configs) {
    EXPECT_EQ(c.status, c.ranks <= size ? Status::ok : Status::skipped) << c.id;
    EXPECT_EQ(c.launch.has_value(), c.status == Status::ok) << c.id;  // skipped: never launched
    if (c.status != Status::ok) continue;
    // One host: the configuration's ranks are the world's first, as /system describes them.
    EXPECT_EQ(c.launch->world_size, size);
    EXPECT_EQ(c.launch->launcher, file.system->launcher);
    ASSERT_EQ(c.launch->ranks.size(), static_cast<std::size_t>(c.ranks));
    for (std::size_t r = 0; r < c.launch->ranks.size(); ++r) {
      EXPECT_EQ(c.launch->ranks[r].rank, static_cast<int>(r));
      EXPECT_EQ(c.launch->ranks[r].host, file.system->ranks[r].host);
      EXPECT_EQ(c.launch->ranks[r].device, file.system->ranks[r].device);
    }
    EXPECT_EQ(c.step_time.size(), 3u);
    EXPECT_EQ(c.rank_phase_time.size(), static_cast<std::size_t>(c.ranks) * 3 * 2);
    ASSERT_EQ(c.rank_memory_peak.size(), static_cast<std::size_t>(c.ranks));
    for (int r = 0; r < c.ranks; ++r) EXPECT_EQ(c.rank_memory_peak[r], 1000 + r);
    EXPECT_NEAR(c.throughput, 12 / c.step_time_median, 1e-9 * c.throughput);
    for (std::size_t r = 0; r < static_cast<std::size_t>(c.ranks); ++r)
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_LE(c.phase_time(r, i, 0) + c.phase_time(r, i, 1), c.step_time[i]);
  }
  EXPECT_NE(s.progress.find("[1/4] probe-r1"), std::string::npos) << s.progress;
}

TEST(SweepRunner, FailuresBecomeStatusesAndTheSweepGoesOn) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<job::Config> configs = {config("oom", 2), config("fail_last", size),
                                            config("slow", 2), config("kokkos_oom", 2),
                                            config("probe", 2)};
  const Sweep s = run(configs, 0.1, "failures");
  EXPECT_EQ(s.summary.failed, 4);
  EXPECT_EQ(s.summary.ok, 1);
  if (rank != 0) return;
  const auto file = results::read_results(s.path);
  std::map<std::string, results::ConfigResult> by_id;
  for (const auto& c : file.configs) by_id[c.id] = c;
  EXPECT_EQ(by_id.at("oom-r2").status, Status::oom);
  EXPECT_NE(by_id.at("oom-r2").error.find("rank 0"), std::string::npos);
  const auto& failed = by_id.at("fail_last-r" + std::to_string(size));
  EXPECT_EQ(failed.status, Status::error);
  EXPECT_EQ(failed.error, "rank " + std::to_string(size - 1) + ": deliberate failure");
  EXPECT_EQ(by_id.at("slow-r2").status, Status::timeout);
  const auto& kokkos = by_id.at("kokkos_oom-r2");
  EXPECT_EQ(kokkos.status, Status::oom) << kokkos.error;  // Kokkos' failure is not a bad_alloc
  EXPECT_EQ(kokkos.error.find('\n'), std::string::npos) << "one line: " << kokkos.error;
  EXPECT_EQ(by_id.at("probe-r2").status, Status::ok);
  for (const auto& [id, c] : by_id) {  // every one started, so every one records its launch
    ASSERT_TRUE(c.launch.has_value()) << id;
    EXPECT_EQ(c.launch->ranks.size(), static_cast<std::size_t>(c.ranks)) << id;
  }
}

TEST(SweepRunner, AnUnusableDeviceIsRecordedAndStopsTheLaunch) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  participated().clear();
  // An ordinary failure first (the sweep goes on), then the device's loss on the last rank.
  const std::vector<job::Config> configs = {config("probe", 1), config("fail_last", 2),
                                            config("device_loss", size), config("probe", 2),
                                            config("probe", size)};
  const std::string device_error = "cudaStreamSynchronize(stream) failed: an illegal address";
  try {
    run(configs, 60, "device_loss");
    FAIL() << "expected SweepStopped";
  } catch (const SweepStopped& e) {
    EXPECT_EQ(e.config_id(), "device_loss-r" + std::to_string(size));
    EXPECT_EQ(e.world_rank(), size - 1);
    EXPECT_EQ(e.device_error(), device_error);
    EXPECT_EQ(std::string(e.what()),
              "stopped after device_loss-r" + std::to_string(size) + ": the CUDA context of rank " +
                  std::to_string(size - 1) + " is unusable (" + device_error +
                  "); the configurations before it are stored; rerun with --resume");
  }
  // Nothing after the lost device ran on any rank.
  for (const std::string& id : participated())
    EXPECT_TRUE(id == "probe-r1" || id == "fail_last-r2" ||
                id == "device_loss-r" + std::to_string(size))
        << id << " ran after the device was lost";
  if (rank != 0) return;
  const auto file = results::read_results(testing::TempDir() + "/scaletune_device_loss_np" +
                                          std::to_string(size) + ".h5");
  std::map<std::string, results::ConfigResult> by_id;
  for (const auto& c : file.configs) by_id[c.id] = c;
  ASSERT_EQ(by_id.size(), 3u) << "the configurations after the lost device must not be stored";
  EXPECT_EQ(by_id.at("probe-r1").status, Status::ok);
  EXPECT_EQ(by_id.at("fail_last-r2").status, Status::error);
  const auto& lost = by_id.at("device_loss-r" + std::to_string(size));
  EXPECT_EQ(lost.status, Status::error);
  EXPECT_EQ(lost.error, "rank " + std::to_string(size - 1) + ": " + device_error);
  ASSERT_TRUE(lost.launch.has_value());
}

// A rank that throws after its step's collective tells rank 0 at once (FailureNotices), but the
// other ranks finish the step and agree on the failure well within the grace: the configuration
// is recorded as error and the sweep goes on, notices of one configuration never reaching the
// next.
TEST(SweepRunner, AnExceptionTheRanksAgreeOnDoesNotEndTheLaunch) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<job::Config> configs = {config("late_failure", size), config("probe", size),
                                      config("late_failure", 2), config("probe", 2)};
  for (std::size_t k = 0; k < configs.size(); ++k) configs[k].id += "-" + std::to_string(k);
  const Sweep s = run(configs, 60, "late_failure");
  EXPECT_EQ(s.summary.failed, 2);
  EXPECT_EQ(s.summary.ok, 2);
  if (rank != 0) return;
  const auto file = results::read_results(s.path);
  ASSERT_EQ(file.configs.size(), 4u);
  for (const auto& c : file.configs) {
    if (c.workload == "probe") {
      EXPECT_EQ(c.status, Status::ok) << c.id << ": " << c.error;
      continue;
    }
    EXPECT_EQ(c.status, Status::error) << c.id;
    EXPECT_EQ(c.error, "rank " + std::to_string(c.ranks - 1) +
                           ": deliberate failure after the step's all-reduce");
  }
}

// The training workloads run on the host: a 16-bit precision ResNet-50 cannot train in there
// fails its configuration, before any workload is made, instead of running in fp32.
TEST(SweepRunner, APrecisionTheHostCannotTrainInFailsTheConfiguration) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  job::Config bf16 = config("resnet50", 1);
  bf16.precision = job::DataType::bf16;
  bf16.id = "resnet50-r1-bf16";
  const Sweep s = run({bf16, config("probe", 1)}, 60, "host_precision");
  EXPECT_EQ(s.summary.failed, 1);
  EXPECT_EQ(s.summary.ok, 1);
  if (rank != 0) return;
  const auto file = results::read_results(s.path);
  ASSERT_EQ(file.configs.size(), 2u);
  const results::ConfigResult& failed = file.configs[1];  // sorted by id: probe-r1 first
  ASSERT_EQ(failed.id, "resnet50-r1-bf16");
  EXPECT_EQ(failed.status, Status::error);
  EXPECT_EQ(failed.error,
            "rank 0: precision \"bf16\" of workload.kind = \"resnet50\" needs CUDA devices "
            "(16-bit activations and tensor-core GEMMs); on the host resnet50 trains in fp32 "
            "only: use precision \"fp32\"; this launch runs on the host");
  EXPECT_EQ(failed.precision, "bf16");
  EXPECT_EQ(failed.device_kind, "host");
  EXPECT_EQ(file.system->device_kind, "host");
}

TEST(SweepRunner, PerRankMemoryIsTheWorldRanksValue) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> gib;  // world rank w may use w + 1 GiB
  for (int w = 0; w < size; ++w) gib.push_back(w + 1);
  const Sweep s = run({config("budget", 1), config("budget", size)}, 60, "budget", gib);
  EXPECT_EQ(s.summary.ok, 2);
  if (rank != 0) return;
  for (const auto& c : results::read_results(s.path).configs) {
    ASSERT_TRUE(c.launch.has_value()) << c.id;
    ASSERT_EQ(c.rank_memory_peak.size(), static_cast<std::size_t>(c.ranks)) << c.id;
    for (std::size_t r = 0; r < c.rank_memory_peak.size(); ++r)
      EXPECT_EQ(c.rank_memory_peak[r], (c.launch->ranks[r].rank + 1) * (std::int64_t{1} << 30))
          << c.id << " rank " << r;
  }
}

}  // namespace
}  // namespace scaletune::mpi
