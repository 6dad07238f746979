// Result files read back exactly what was written: a whole run, a replaced configuration,
// a resumed sweep, and a file read while its writer is still open.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

using test::expect_same;

/// Writes the sample run (three configurations) to `path` and closes the file.
void write_sample_run(const std::string& path) {
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  writer.write_config(test::timeout_config());
  writer.write_config(test::ok_config());
  writer.write_config(test::oom_config());
}

TEST(ResultFile, WholeRunReadsBackEqual) {
  const test::TempDir dir;
  const std::string path = dir.file("nested/folders/run.h5");  // parents are created
  write_sample_run(path);

  const ResultSet set = read_results(path);
  EXPECT_EQ(set.path, path);
  expect_same(set.provenance, test::sample_provenance());
  ASSERT_TRUE(set.system.has_value());
  expect_same(*set.system, test::sample_system());
  // In increasing id order, whatever the write order.
  ASSERT_EQ(set.configs.size(), 3u);
  expect_same(set.configs[0], test::oom_config());
  expect_same(set.configs[1], test::ok_config());
  expect_same(set.configs[2], test::timeout_config());
  // The row-major index of ConfigResult::phase_time still finds rank 2's all-reduce share.
  const ConfigResult& ok = set.configs[1];
  EXPECT_DOUBLE_EQ(ok.phase_time(2, 3, 2), ok.step_time[3] * (0.13 + 0.04));
}

TEST(ResultFile, SystemWithoutCudaOrNcclReadsBackEmptyStrings) {
  const test::TempDir dir;
  const std::string path = dir.file("host.h5");
  SystemInfo host = test::sample_system();
  host.kokkos_backend = "Serial";
  host.cuda_runtime.clear();
  host.nccl_version.clear();
  host.blas = "openblas 0.3.21 (core Prescott)";
  ResultWriter::create(path, test::sample_provenance(), host);

  const ResultSet set = read_results(path);
  ASSERT_TRUE(set.system.has_value());
  expect_same(*set.system, host);
  EXPECT_TRUE(set.configs.empty());
}

TEST(ResultFile, SystemOutsideSlurmReadsBackEmptySlurmStrings) {
  const test::TempDir dir;
  const std::string path = dir.file("mpirun.h5");
  const SystemInfo mpirun = test::sample_system_outside_slurm("mpirun");
  ResultWriter::create(path, test::sample_provenance(), mpirun);

  const ResultSet set = read_results(path);
  ASSERT_TRUE(set.system.has_value());
  expect_same(*set.system, mpirun);
  EXPECT_EQ(set.system->launcher, "mpirun");
  EXPECT_EQ(set.system->slurm_job_id, "");
}

TEST(ResultFile, SystemWithoutLauncherReadsBackEmpty) {
  // As written before launch detection: no launcher and no slurm_* attributes.
  const test::TempDir dir;
  const std::string path = dir.file("older.h5");
  const SystemInfo older = test::sample_system_outside_slurm("");
  ResultWriter::create(path, test::sample_provenance(), older);

  const ResultSet set = read_results(path);
  ASSERT_TRUE(set.system.has_value());
  expect_same(*set.system, older);
  EXPECT_EQ(set.system->launcher, "");
}

TEST(ResultFile, FilesWithoutDeviceKindsReadAsHost) {
  // As written before device kinds were recorded: neither /system nor a configuration has one.
  const test::TempDir dir;
  const std::string path = dir.file("older.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(test::ok_config());
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    ASSERT_GE(H5Adelete(test::open_object(file, "system"), "device_kind"), 0);
    ASSERT_GE(H5Adelete(test::open_object(file, "/configs/" + test::ok_config().id), "device_kind"),
              0);
  }
  const ResultSet set = read_results(path);
  ASSERT_TRUE(set.system.has_value());
  EXPECT_EQ(set.system->device_kind, "host");
  ASSERT_EQ(set.configs.size(), 1u);
  EXPECT_EQ(set.configs[0].device_kind, "host");
  EXPECT_FALSE(set.configs[0].text_attrs.contains("device_kind"));
}

TEST(ResultFile, WritingAnIdAgainReplacesTheConfiguration) {
  const test::TempDir dir;
  const std::string path = dir.file("replace.h5");
  ConfigResult failed = test::ok_config();  // same id: first without data, then with it
  failed.status = Status::error;
  failed.error = "rank 0: illegal value in the loss";
  failed.step_time.clear();
  failed.phase_names.clear();
  failed.rank_phase_time.clear();
  failed.rank_memory_peak.clear();
  failed.number_attrs = {{"retries", 1}};
  ConfigResult timed_out = test::timeout_config();
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(test::ok_config());
    writer.write_config(failed);  // data and extra attributes of the first must go
    writer.write_config(timed_out);
    timed_out.status = Status::ok;  // and the other way: without data, then with it
    timed_out.error.clear();
    timed_out.step_time = {1.0, 1.0};
    timed_out.step_time_median = 1.0;
    timed_out.step_time_p95 = 1.0;
    timed_out.throughput = 96.0;
    timed_out.phase_names = {"step"};
    timed_out.rank_phase_time = {0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.6};
    timed_out.rank_memory_peak = {1, 2, 3, 4};
    writer.write_config(timed_out);
  }
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 2u);
  expect_same(set.configs[0], failed);
  expect_same(set.configs[1], timed_out);
}

TEST(ResultFile, ResumeKeepsStoredConfigurationsAndListsOnlyOkOnes) {
  const test::TempDir dir;
  const std::string path = dir.file("resume.h5");
  {
    ResultWriter first =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    first.write_config(test::ok_config());
    first.write_config(test::timeout_config());
    EXPECT_EQ(first.ok_config_ids(), std::vector<std::string>{test::ok_config().id});
  }
  Provenance again = test::sample_provenance();
  again.created_utc = "2026-11-30T04:30:00Z";
  again.command_line += " --resume";
  SystemInfo smaller = test::sample_system();
  smaller.world_size = 2;
  smaller.ranks.resize(2);

  ResultWriter resumed = ResultWriter::open_for_resume(path, again, smaller);
  EXPECT_EQ(resumed.path(), path);
  EXPECT_EQ(resumed.ok_config_ids(), std::vector<std::string>{test::ok_config().id});
  ConfigResult rerun = test::timeout_config();  // the failed one runs again, now fine
  rerun.status = Status::oom;
  rerun.error = "rank 3: out of memory";
  resumed.write_config(rerun);
  resumed.write_config(test::oom_config());
  EXPECT_EQ(resumed.ok_config_ids(), std::vector<std::string>{test::ok_config().id});

  const ResultSet set = read_results(path);
  expect_same(set.provenance, again);
  ASSERT_TRUE(set.system.has_value());
  expect_same(*set.system, smaller);
  ASSERT_EQ(set.configs.size(), 3u);
  expect_same(set.configs[0], test::oom_config());
  expect_same(set.configs[1], test::ok_config());
  expect_same(set.configs[2], rerun);
}

TEST(ResultFile, ResumeWithoutAFileCreatesIt) {
  const test::TempDir dir;
  const std::string path = dir.file("new/resume.h5");
  ResultWriter writer =
      ResultWriter::open_for_resume(path, test::sample_provenance(), test::sample_system());
  EXPECT_TRUE(writer.ok_config_ids().empty());
  writer.write_config(test::ok_config());
  EXPECT_EQ(writer.ok_config_ids(), std::vector<std::string>{test::ok_config().id});
}

TEST(ResultFile, CreateTruncatesAnExistingFile) {
  const test::TempDir dir;
  const std::string path = dir.file("again.h5");
  write_sample_run(path);
  ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  EXPECT_TRUE(read_results(path).configs.empty());
}

TEST(ResultFile, ReadableAfterEachWriteWhileTheWriterIsOpen) {
  const test::TempDir dir;
  const std::string path = dir.file("live.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  EXPECT_TRUE(read_results(path).configs.empty());
  writer.write_config(test::ok_config());
  ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 1u);
  expect_same(set.configs[0], test::ok_config());
  writer.write_config(test::oom_config());
  set = read_results(path);
  ASSERT_EQ(set.configs.size(), 2u);
  expect_same(set.configs[0], test::oom_config());
  expect_same(set.configs[1], test::ok_config());
}

TEST(ResultFile, WrittenConfigurationsSurviveAWriterKilledBeforeClosing) {
  const test::TempDir dir;
  const std::string path = dir.file("killed.h5");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the writer: killed like a crashed rank 0, with the file still open
    try {
      ResultWriter writer =
          ResultWriter::create(path, test::sample_provenance(), test::sample_system());
      writer.write_config(test::ok_config());
      writer.write_config(test::timeout_config());
      std::raise(SIGKILL);
    } catch (...) {
    }
    std::_Exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "writer failed first";
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 2u);
  expect_same(set.configs[0], test::ok_config());
  expect_same(set.configs[1], test::timeout_config());
}

TEST(ResultFile, MovedWriterKeepsWritingTheSameFile) {
  const test::TempDir dir;
  const std::string path = dir.file("moved.h5");
  ResultWriter first = ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ResultWriter second = std::move(first);
  second.write_config(test::oom_config());
  first = std::move(second);
  first.write_config(test::ok_config());
  EXPECT_EQ(read_results(path).configs.size(), 2u);
}

/// Whether /usr/bin/python3 can import h5py (Debian's python3-h5py).
bool have_h5py() {
  return std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0;
}

TEST(ResultFile, PassesTheSharedLayoutChecker) {
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 cannot import h5py";
  const test::TempDir dir;
  const std::string path = dir.file("checked.h5");
  const std::string check =
      "/usr/bin/python3 " SCALETUNE_SHARED_DIR "/checks/check_results.py " + path;
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(test::ok_config());
    writer.write_config(test::timeout_config());
    writer.write_config(test::oom_config());
    // Another process reads the file while the writer still has it open: all three are there.
    EXPECT_EQ(std::system(check.c_str()), 0) << check;
    const std::string count =
        "/usr/bin/python3 -c \"import h5py, sys; "
        "sys.exit(len(h5py.File(sys.argv[1], 'r')['configs']) != 3)\" " +
        path;
    EXPECT_EQ(std::system(count.c_str()), 0) << count;
  }
  EXPECT_EQ(std::system(check.c_str()), 0) << check;  // and after it closed the file
}

TEST(ResultFile, SharedLayoutCheckerRejectsInconsistentThroughput) {
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 cannot import h5py";
  const test::TempDir dir;
  const std::string path = dir.file("wrong.h5");
  ConfigResult wrong = test::ok_config();
  wrong.throughput *= 2;  // the checker must see this, or the passing test above means little
  ResultWriter::create(path, test::sample_provenance(), test::sample_system()).write_config(wrong);
  const std::string check =
      "/usr/bin/python3 " SCALETUNE_SHARED_DIR "/checks/check_results.py " + path + " >/dev/null";
  EXPECT_NE(std::system(check.c_str()), 0);
}

}  // namespace
}  // namespace scaletune::results
