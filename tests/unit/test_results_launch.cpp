// The /configs/<id>/launch group (LaunchRecord): built from a launch's /system for the world
// ranks a configuration ran on, written and read back equal, absent reads as std::nullopt,
// rows that do not fit the configuration or the launch rejected by the writer before anything
// is written and by the reader naming the file, the configuration and the field.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/results/launch_record.hpp"
#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

constexpr const char* kStarted = "2026-11-30T03:00:00Z";

using test::contains;
using test::error_of;

/// The sample 3-rank configuration as placed on world ranks 2, 3 and 0 of sample_system()
/// (node02 first, then rank 0 on node01, as a placement that fills node02 would).
ConfigResult placed_config() {
  ConfigResult c = test::ok_config();
  c.launch = launch_record(test::sample_system(), kStarted, std::vector<int>{2, 3, 0});
  return c;
}

std::string launch_path() {
  return "/configs/" + test::ok_config().id + "/launch";
}

/// A result file holding placed_config(); returns its path.
std::string write_placed_file(const test::TempDir& dir) {
  const std::string path = dir.file("placed.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(placed_config());
  return path;
}

TEST(ResultLaunch, RecordTakesTheSystemRowsOfTheWorldRanksInConfigurationOrder) {
  const SystemInfo system = test::sample_system();
  const LaunchRecord launch = launch_record(system, kStarted, std::vector<int>{2, 3, 0});
  EXPECT_EQ(launch.world_size, 4);
  EXPECT_EQ(launch.started_utc, kStarted);
  EXPECT_EQ(launch.launcher, "srun");
  EXPECT_EQ(launch.slurm_job_id, "4242");
  EXPECT_EQ(launch.slurm_step_id, "3");
  ASSERT_EQ(launch.ranks.size(), 3u);
  EXPECT_EQ(launch.ranks[0].rank, 2);
  EXPECT_EQ(launch.ranks[0].host, "node02");
  EXPECT_EQ(launch.ranks[0].local_rank, 0);
  EXPECT_EQ(launch.ranks[1].rank, 3);
  EXPECT_EQ(launch.ranks[1].device, "cuda:1 NVIDIA H200");
  EXPECT_EQ(launch.ranks[2].rank, 0);
  EXPECT_EQ(launch.ranks[2].host, "node01");
}

TEST(ResultLaunch, RecordRefusesAWorldRankTheSystemLacks) {
  try {
    (void)launch_record(test::sample_system(), kStarted, std::vector<int>{0, 4});
    ADD_FAILURE() << "no std::out_of_range thrown";
  } catch (const std::out_of_range& e) {
    EXPECT_EQ(std::string(e.what()), "world rank 4 is not in /system/ranks (4 rows)");
  }
  EXPECT_THROW((void)launch_record(test::sample_system(), kStarted, std::vector<int>{-1}),
               std::out_of_range);
}

TEST(ResultLaunch, RoundTripReadsBackEqual) {
  const test::TempDir dir;
  const std::string path = dir.file("roundtrip.h5");
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(placed_config());
    writer.write_config(test::oom_config());
  }
  const ResultSet set = read_results(path);  // in id order: the oom one (r2) first
  ASSERT_EQ(set.configs.size(), 2u);
  EXPECT_FALSE(set.configs[0].launch.has_value());
  ASSERT_TRUE(set.configs[1].launch.has_value());
  test::expect_same(set.configs[1], placed_config());
}

TEST(ResultLaunch, GroupHasTheDocumentedLayout) {
  const test::TempDir dir;
  const test::Id file = test::open_file(write_placed_file(dir));
  const test::Id group = test::open_object(file, launch_path());
  ASSERT_GE(group, 0);
  EXPECT_EQ(test::attribute_type(group, "world_size").type_class, H5T_INTEGER);
  EXPECT_EQ(test::string_attribute(group, "started_utc"), kStarted);
  EXPECT_EQ(test::string_attribute(group, "launcher"), "srun");
  EXPECT_EQ(test::string_attribute(group, "slurm_job_id"), "4242");
  EXPECT_EQ(test::string_attribute(group, "slurm_step_id"), "3");
  const test::Id ranks = test::open_object(group, "ranks");
  ASSERT_GE(ranks, 0);
  EXPECT_EQ(test::dataset_shape(ranks), std::vector<hsize_t>{3});
  EXPECT_EQ(test::string_attribute(ranks, "dims"), "ranks");
  const test::Id row{H5Dget_type(ranks), H5Tclose};
  ASSERT_EQ(H5Tget_class(row), H5T_COMPOUND);
  ASSERT_EQ(H5Tget_nmembers(row), 5);
  // The world rank of each configuration rank, read as another program would.
  const test::Id rank_only{H5Tcreate(H5T_COMPOUND, sizeof(int)), H5Tclose};
  ASSERT_GE(H5Tinsert(rank_only, "rank", 0, H5T_NATIVE_INT), 0);
  std::vector<int> world_ranks(3);
  ASSERT_GE(H5Dread(ranks, rank_only, H5S_ALL, H5S_ALL, H5P_DEFAULT, world_ranks.data()), 0);
  EXPECT_EQ(world_ranks, (std::vector<int>{2, 3, 0}));
}

TEST(ResultLaunch, EmptyTextIsNotWritten) {
  const SystemInfo system = test::sample_system_outside_slurm("singleton");
  ConfigResult config = test::ok_config();
  config.launch = launch_record(system, kStarted, std::vector<int>{0, 1, 2});
  const test::TempDir dir;
  const std::string path = dir.file("plain.h5");
  ResultWriter::create(path, test::sample_provenance(), system).write_config(config);
  {
    const test::Id file = test::open_file(path);
    const test::Id group = test::open_object(file, launch_path());
    EXPECT_FALSE(test::has_attribute(group, "slurm_job_id"));
    EXPECT_FALSE(test::has_attribute(group, "slurm_step_id"));
  }
  test::expect_same(read_results(path).configs.at(0), config);
}

TEST(ResultLaunch, ConfigurationWithoutTheGroupReadsAsNullopt) {
  const test::TempDir dir;
  const std::string path = write_placed_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    ASSERT_GE(H5Ldelete(file, launch_path().c_str(), H5P_DEFAULT), 0);
  }
  test::expect_same(read_results(path).configs.at(0), test::ok_config());
}

/// A change that makes placed_config()'s launch record unstorable, and the message part.
struct BadLaunch {
  std::string name;
  std::function<void(LaunchRecord&)> spoil;
  std::string message;
};

class WriterRejectsLaunch : public ::testing::TestWithParam<BadLaunch> {};

TEST_P(WriterRejectsLaunch, WithoutCreatingTheConfigGroup) {
  const test::TempDir dir;
  const std::string path = dir.file("reject.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ConfigResult config = placed_config();
  GetParam().spoil(*config.launch);
  const std::string message = error_of([&] { writer.write_config(config); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + config.id + ": "));
  EXPECT_TRUE(contains(message, GetParam().message));
  EXPECT_TRUE(read_results(path).configs.empty());
}

INSTANTIATE_TEST_SUITE_P(
    ResultLaunch, WriterRejectsLaunch,
    ::testing::Values(
        BadLaunch{"RowShort", [](LaunchRecord& l) { l.ranks.pop_back(); },
                  "launch.ranks holds 2 values; expected ranks = 3"},
        BadLaunch{"WorldRankOutside", [](LaunchRecord& l) { l.ranks[1].rank = 4; },
                  "launch.ranks names world rank 4; expected one in [0, launch.world_size = 4)"},
        BadLaunch{"NegativeWorldRank", [](LaunchRecord& l) { l.ranks[0].rank = -1; },
                  "launch.ranks names world rank -1"},
        BadLaunch{"WorldRankTwice", [](LaunchRecord& l) { l.ranks[2].rank = 2; },
                  "launch.ranks names world rank 2 twice"},
        BadLaunch{"WorldSmallerThanConfiguration", [](LaunchRecord& l) { l.world_size = 2; },
                  "launch.ranks names world rank 2; expected one in [0, launch.world_size = 2)"},
        BadLaunch{"StartNotIso8601", [](LaunchRecord& l) { l.started_utc = "yesterday"; },
                  "launch.started_utc is 'yesterday'; expected an ISO 8601 UTC time like "
                  "2026-11-30T03:00:00Z"},
        BadLaunch{"StartWithoutZone",
                  [](LaunchRecord& l) { l.started_utc = "2026-11-30T03:00:00"; },
                  "launch.started_utc is '2026-11-30T03:00:00'"},
        BadLaunch{"UnknownLauncher", [](LaunchRecord& l) { l.launcher = "pbs"; },
                  "launch.launcher is 'pbs'; expected mpirun, srun or singleton"},
        BadLaunch{"NoLauncher", [](LaunchRecord& l) { l.launcher.clear(); },
                  "launch.launcher is ''; expected mpirun, srun or singleton"},
        BadLaunch{"StepWithoutSrun", [](LaunchRecord& l) { l.launcher = "mpirun"; },
                  "launch.slurm_step_id is set for launcher mpirun; expected it only for srun"}),
    [](const ::testing::TestParamInfo<BadLaunch>& param) { return param.param.name; });

TEST(ResultLaunch, ReaderRejectsAWorldSizeTheRowsDoNotFit) {
  const test::TempDir dir;
  const std::string path = write_placed_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = test::open_object(file, launch_path());
    ASSERT_GE(H5Adelete(group, "world_size"), 0);
    test::put_int_attribute(group, "world_size", 3);  // rank 3 is then outside
  }
  const std::string message = error_of([&] { (void)read_results(path); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + test::ok_config().id + ": "));
  EXPECT_TRUE(contains(
      message, "launch.ranks names world rank 3; expected one in [0, launch.world_size = 3)"));
}

TEST(ResultLaunch, ReaderNamesALaunchThatIsNoGroup) {
  const test::TempDir dir;
  const std::string path = write_placed_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    ASSERT_GE(H5Ldelete(file, launch_path().c_str(), H5P_DEFAULT), 0);
    const hsize_t n = 3;
    const test::Id space{H5Screate_simple(1, &n, nullptr), H5Sclose};
    const test::Id dataset{H5Dcreate2(file, launch_path().c_str(), H5T_STD_I32LE, space,
                                      H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose};
    ASSERT_GE(dataset, 0);
  }
  EXPECT_EQ(error_of([&] { (void)read_results(path); }),
            path + ": " + launch_path() + ": expected a group, found a dataset or another object");
}

TEST(ResultLaunch, WriterRefusesARecordForASkippedConfiguration) {
  const test::TempDir dir;
  const std::string path = dir.file("skipped.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ConfigResult config = test::oom_config();
  config.status = Status::skipped;
  config.launch = launch_record(test::sample_system(), kStarted, std::vector<int>{0, 1});
  EXPECT_TRUE(contains(error_of([&] { writer.write_config(config); }),
                       "a skipped configuration has a launch record; expected none"));
  EXPECT_TRUE(read_results(path).configs.empty());
}

/// The message reading placed_config()'s file gives after `edit` changed its launch group.
std::string read_error_after(const std::function<void(hid_t launch)>& edit) {
  const test::TempDir dir;
  const std::string path = write_placed_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = test::open_object(file, launch_path());
    edit(group);
  }
  return error_of([&] { (void)read_results(path); });
}

// A missing part makes the configuration incomplete (an interrupted write): skipped and named.
TEST(ResultLaunch, ReaderSkipsAndNamesAConfigurationMissingARequiredAttribute) {
  for (const char* name : {"started_utc", "launcher", "world_size"}) {
    SCOPED_TRACE(name);
    const test::TempDir dir;
    const std::string path = write_placed_file(dir);
    {
      const test::Id file = test::open_file(path, H5F_ACC_RDWR);
      ASSERT_GE(H5Adelete(test::open_object(file, launch_path()), name), 0);
    }
    const ResultSet set = read_results(path);
    EXPECT_TRUE(set.configs.empty());
    ASSERT_EQ(set.incomplete.size(), 1U);
    EXPECT_TRUE(contains(set.incomplete.front().reason,
                         launch_path() + ": missing attribute " + std::string(name)));
  }
}

TEST(ResultLaunch, ReaderRefusesAFloatingPointWorldSize) {
  const std::string message = read_error_after([](hid_t group) {
    ASSERT_GE(H5Adelete(group, "world_size"), 0);
    const test::Id space{H5Screate(H5S_SCALAR), H5Sclose};
    const test::Id attr{
        H5Acreate2(group, "world_size", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    const double value = 4.0;
    ASSERT_GE(H5Awrite(attr, H5T_NATIVE_DOUBLE, &value), 0);
  });
  EXPECT_TRUE(contains(message, launch_path() + " attribute world_size: expected an integer "
                                                "scalar, found a floating-point number"))
      << message;
}

TEST(ResultLaunch, SystemLauncherMustBeKnown) {
  const test::TempDir dir;
  SystemInfo system = test::sample_system();
  system.launcher = "pbs";
  const std::string path = dir.file("pbs.h5");
  EXPECT_TRUE(contains(
      error_of([&] { (void)ResultWriter::create(path, test::sample_provenance(), system); }),
      "launcher is 'pbs'; expected mpirun, srun or singleton"));
}

}  // namespace
}  // namespace scaletune::results
