#pragma once
// What the result-file tests share: a temporary folder, a consistent sample run (provenance,
// system, an ok configuration with data, timeout and oom ones without), naive reference
// statistics, and field-by-field comparisons that name the first difference.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/results/result_error.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::test {

/// A fresh folder under the system temporary directory, removed with its contents at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();  // "Test/Param" for parameterised tests: one folder
    std::ranges::replace(name, '/', '-');
    m_path = std::filesystem::temp_directory_path() /
             ("scaletune-results-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(m_path);
    std::filesystem::create_directories(m_path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  /// Path of `name` inside the folder.
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

/// Median by sorting: the middle value, or the mean of the two middle values.
inline double naive_median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/// q-quantile by linear interpolation between order statistics at h = (n - 1) q
/// (Hyndman & Fan type 7, numpy's default).
inline double naive_quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  const double h = static_cast<double>(x.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (h - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

inline Provenance sample_provenance() {
  Provenance p;
  p.scaletune_version = "0.1.0";
  p.git_sha = "c37371b2a9f0";
  p.created_utc = "2026-11-30T03:00:00Z";
  p.command_line = "scaletune run jobs/resnet50-scaling.toml --out results/r.h5";
  // Non-ASCII text checks that strings are stored as UTF-8.
  p.job_toml = "[job]\nname = \"resnet50-scaling\"  # Größe: 224²\n\n[sweep]\nranks = [3, 4]\n";
  p.build_type = "Release";
  return p;
}

inline SystemInfo sample_system() {
  SystemInfo s;
  s.world_size = 4;
  s.mpi_library = "Open MPI v4.1.4";
  s.kokkos_version = "3.4.1";
  s.kokkos_backend = "Cuda";
  s.cuda_runtime = "13.0";
  s.nccl_version = "2.28.3";
  s.blas = "cuBLAS 13.0";
  s.launcher = "srun";  // step 3 of Slurm job 4242 on the two nodes of the rank table
  s.slurm_job_id = "4242";
  s.slurm_nodelist = "node[01-02]";
  s.slurm_step_id = "3";
  s.device_kind = "cuda";
  for (int r = 0; r < 4; ++r)  // 141 GB H200s: memory above 2^32 checks the int64 field
    s.ranks.push_back({r, r < 2 ? "node01" : "node02", r % 2,
                       "cuda:" + std::to_string(r % 2) + " NVIDIA H200", 150'754'820'096});
  return s;
}

/// sample_system() launched by `launcher` ("mpirun", "singleton", or "" as files from before
/// launch detection have it) outside Slurm: no Slurm job, node list or step.
inline SystemInfo sample_system_outside_slurm(const std::string& launcher) {
  SystemInfo s = sample_system();
  s.launcher = launcher;
  s.slurm_job_id.clear();
  s.slurm_nodelist.clear();
  s.slurm_step_id.clear();
  return s;
}

/// ResNet-50 on 3 unequal ranks (proportional split 48/24/24 of 96), 6 iterations, 4 phases.
/// Phases take fixed shares (0.93 to 0.97) of each step time, so every rank's phases fit in
/// it; throughput = global_batch / median(step_time); step_time_p95 is the type-7 quantile.
inline ConfigResult ok_config() {
  ConfigResult c;
  c.id = "resnet50-r3-b96-proportional";
  c.workload = "resnet50";
  c.ranks = 3;
  c.global_batch = 96;
  c.per_rank_batch = {48, 24, 24};
  c.batch_split = "proportional";
  c.precision = "fp32";
  c.device_kind = "cuda";
  c.status = Status::ok;
  c.params = 25'557'032;               // DESIGN.md: ResNet-50 v1.5
  c.flops_per_sample = 3 * 2 * 4.1e9;  // forward 4.1 GMAC; backward twice the forward
  c.step_time = {0.412, 0.398, 0.405, 0.431, 0.401, 0.399};
  c.step_time_median = naive_median(c.step_time);
  c.step_time_p95 = naive_quantile(c.step_time, 0.95);
  c.harness_overhead_fraction = 0.0025;
  c.throughput = c.global_batch / c.step_time_median;
  c.phase_names = {"fwd", "bwd", "allreduce", "optimizer"};
  const std::vector<double> shares = {0.30, 0.45, 0.13, 0.05};
  for (int r = 0; r < c.ranks; ++r)
    for (double step_s : c.step_time)
      for (std::size_t p = 0; p < shares.size(); ++p)
        c.rank_phase_time.push_back(step_s * (shares[p] + (p == 2 ? 0.02 * r : 0.0)));
  c.rank_memory_peak = {9'876'543'210, 5'123'456'789, 5'123'400'000};
  c.number_attrs = {{"image_size", 224}, {"width", 1.0}, {"warmup", 3}};
  c.text_attrs = {{"state_sharding", "replicated"}, {"comm_backend", "nccl"}};
  return c;
}

/// ResNet-50 on 4 ranks that ran past timeout_s: no per-iteration data.
inline ConfigResult timeout_config() {
  ConfigResult c;
  c.id = "resnet50-r4-b96-even";
  c.workload = "resnet50";
  c.ranks = 4;
  c.global_batch = 96;
  c.per_rank_batch = {24, 24, 24, 24};
  c.batch_split = "even";
  c.precision = "fp32";
  c.status = Status::timeout;
  c.error = "configuration exceeded timeout_s = 600 after 2 of 20 iterations";
  c.params = 25'557'032;
  c.flops_per_sample = 3 * 2 * 4.1e9;
  c.number_attrs = {{"image_size", 224}};
  return c;
}

/// A DLRM-style model on 2 ranks that ran out of memory: no per-iteration data.
inline ConfigResult oom_config() {
  ConfigResult c;
  c.id = "dlrm-r2-b4096-even-table-wise";
  c.workload = "dlrm";
  c.ranks = 2;
  c.global_batch = 4096;
  c.per_rank_batch = {2048, 2048};
  c.batch_split = "even";
  c.precision = "fp16";
  c.status = Status::oom;
  c.error = "rank 1: out of memory allocating 17179869184 bytes for embedding tables";
  c.params = 540'000'000;
  c.text_attrs = {{"sharding", "table-wise"}};
  return c;
}

inline void expect_same(const Provenance& got, const Provenance& want) {
  EXPECT_EQ(got.schema_version, want.schema_version);
  EXPECT_EQ(got.scaletune_version, want.scaletune_version);
  EXPECT_EQ(got.git_sha, want.git_sha);
  EXPECT_EQ(got.created_utc, want.created_utc);
  EXPECT_EQ(got.command_line, want.command_line);
  EXPECT_EQ(got.job_toml, want.job_toml);
  EXPECT_EQ(got.build_type, want.build_type);
}

inline void expect_same(const std::vector<RankInfo>& got, const std::vector<RankInfo>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    SCOPED_TRACE("rank row " + std::to_string(r));
    EXPECT_EQ(got[r].rank, want[r].rank);
    EXPECT_EQ(got[r].host, want[r].host);
    EXPECT_EQ(got[r].local_rank, want[r].local_rank);
    EXPECT_EQ(got[r].device, want[r].device);
    EXPECT_EQ(got[r].memory_bytes, want[r].memory_bytes);
  }
}

inline void expect_same(const SystemInfo& got, const SystemInfo& want) {
  EXPECT_EQ(got.world_size, want.world_size);
  EXPECT_EQ(got.mpi_library, want.mpi_library);
  EXPECT_EQ(got.kokkos_version, want.kokkos_version);
  EXPECT_EQ(got.kokkos_backend, want.kokkos_backend);
  EXPECT_EQ(got.cuda_runtime, want.cuda_runtime);
  EXPECT_EQ(got.nccl_version, want.nccl_version);
  EXPECT_EQ(got.blas, want.blas);
  EXPECT_EQ(got.launcher, want.launcher);
  EXPECT_EQ(got.slurm_job_id, want.slurm_job_id);
  EXPECT_EQ(got.slurm_nodelist, want.slurm_nodelist);
  EXPECT_EQ(got.slurm_step_id, want.slurm_step_id);
  EXPECT_EQ(got.device_kind, want.device_kind);
  expect_same(got.ranks, want.ranks);
}

inline void expect_same(const LaunchRecord& got, const LaunchRecord& want) {
  EXPECT_EQ(got.world_size, want.world_size);
  EXPECT_EQ(got.started_utc, want.started_utc);
  EXPECT_EQ(got.launcher, want.launcher);
  EXPECT_EQ(got.slurm_job_id, want.slurm_job_id);
  EXPECT_EQ(got.slurm_step_id, want.slurm_step_id);
  expect_same(got.ranks, want.ranks);
}

/// Every field equal; doubles bit for bit (HDF5 stores float64 unchanged).
inline void expect_same(const ConfigResult& got, const ConfigResult& want) {
  SCOPED_TRACE("configuration " + want.id);
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.workload, want.workload);
  EXPECT_EQ(got.ranks, want.ranks);
  EXPECT_EQ(got.global_batch, want.global_batch);
  EXPECT_EQ(got.per_rank_batch, want.per_rank_batch);
  EXPECT_EQ(got.batch_split, want.batch_split);
  EXPECT_EQ(got.precision, want.precision);
  EXPECT_EQ(got.device_kind, want.device_kind);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.error, want.error);
  EXPECT_EQ(got.params, want.params);
  EXPECT_EQ(got.flops_per_sample, want.flops_per_sample);
  EXPECT_EQ(got.throughput, want.throughput);
  EXPECT_EQ(got.step_time_median, want.step_time_median);
  EXPECT_EQ(got.step_time_p95, want.step_time_p95);
  EXPECT_EQ(got.harness_overhead_fraction, want.harness_overhead_fraction);
  EXPECT_EQ(got.step_time, want.step_time);
  EXPECT_EQ(got.phase_names, want.phase_names);
  EXPECT_EQ(got.rank_phase_time, want.rank_phase_time);
  EXPECT_EQ(got.rank_memory_peak, want.rank_memory_peak);
  EXPECT_EQ(got.number_attrs, want.number_attrs);
  EXPECT_EQ(got.text_attrs, want.text_attrs);
  EXPECT_EQ(got.timeline, want.timeline);
  ASSERT_EQ(got.launch.has_value(), want.launch.has_value());
  if (want.launch) expect_same(*got.launch, *want.launch);
}

/// Success when `text` contains `piece`; otherwise a failure that shows both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& piece) {
  if (text.find(piece) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << text << "\"\n lacks \"" << piece << "\"";
}

/// The message of the ResultError `action` throws; fails the test when it throws none.
inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ResultError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ResultError thrown";
  return "";
}

}  // namespace scaletune::results::test
