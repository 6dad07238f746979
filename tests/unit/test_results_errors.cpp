// Result files that cannot be read, and configurations that cannot be written, fail with a
// ResultError that names the file, the object and what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

using test::contains;
using test::error_of;

/// A result file holding the sample ok configuration; returns its path.
std::string write_ok_file(const test::TempDir& dir) {
  const std::string path = dir.file("run.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(test::ok_config());
  return path;
}

/// The configuration group of the sample ok configuration in file `file`.
test::Id ok_group(hid_t file) {
  return test::open_object(file, "/configs/" + test::ok_config().id);
}

/// Replaces attribute `name` of `obj` by a scalar int32 `value`, as another program might.
void replace_int_attribute(hid_t obj, const std::string& name, int value) {
  ASSERT_GE(H5Adelete(obj, name.c_str()), 0);
  test::put_int_attribute(obj, name, value);
}

/// Replaces attribute `name` of `obj` by an int32 vector of `values`.
void replace_int_array_attribute(hid_t obj, const std::string& name,
                                 const std::vector<int>& values) {
  ASSERT_GE(H5Adelete(obj, name.c_str()), 0);
  const hsize_t n = values.size();
  const test::Id space{H5Screate_simple(1, &n, nullptr), H5Sclose};
  const test::Id attr{H5Acreate2(obj, name.c_str(), H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT),
                      H5Aclose};
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_INT, values.data()), 0);
}

TEST(ResultFileErrors, MissingFileNamesThePathAndTheExpectedFile) {
  const test::TempDir dir;
  const std::string path = dir.file("absent.h5");
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path));
  EXPECT_TRUE(contains(message, "no such file"));
  EXPECT_TRUE(contains(message, "expected a scaletune result file (HDF5 with schema_version 1)"));
}

TEST(ResultFileErrors, TextFileNamedH5IsNotHdf5) {
  const test::TempDir dir;
  const std::string path = dir.file("notes.h5");
  std::ofstream(path) << "step_time,0.41\nstep_time,0.40\n";
  for (const std::string& message : {error_of([&] { read_results(path); }), error_of([&] {
                                       ResultWriter::open_for_resume(
                                           path, test::sample_provenance(), test::sample_system());
                                     })}) {
    EXPECT_TRUE(contains(message, path));
    EXPECT_TRUE(contains(message, "not an HDF5 file"));
    EXPECT_TRUE(contains(message, "schema_version 1"));
  }
  std::ifstream kept(path);  // resume did not touch it
  std::string first_line;
  std::getline(kept, first_line);
  EXPECT_EQ(first_line, "step_time,0.41");
}

TEST(ResultFileErrors, Hdf5FileWithoutSchemaVersionIsNotAResultFile) {
  const test::TempDir dir;
  const std::string path = dir.file("other.h5");
  {
    const test::Id file = test::create_file(path);
    test::put_string_attribute(file, "title", "someone else's data");
  }
  for (const std::string& message : {error_of([&] { read_results(path); }), error_of([&] {
                                       ResultWriter::open_for_resume(
                                           path, test::sample_provenance(), test::sample_system());
                                     })}) {
    EXPECT_TRUE(contains(message, path));
    EXPECT_TRUE(contains(message, "no attribute schema_version"));
    EXPECT_TRUE(contains(message, "expected a scaletune result file"));
  }
  const test::Id file = test::open_file(path);
  EXPECT_FALSE(test::has_attribute(file, "scaletune_version"));  // resume did not write
}

TEST(ResultFileErrors, OtherSchemaVersionIsRejected) {
  const test::TempDir dir;
  const std::string path = dir.file("future.h5");
  {
    const test::Id file = test::create_file(path);
    test::put_int_attribute(file, "schema_version", 2);
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path));
  EXPECT_TRUE(contains(message, "schema_version is 2"));
  EXPECT_TRUE(contains(message, "HDF5 with schema_version 1"));
}

/// The file of write_ok_file with `edit` applied to the ok configuration's group, then a second
/// configuration ("second") added whole by the writer.
std::string file_with_edited_config(const test::TempDir& dir,
                                    const std::function<void(hid_t group)>& edit) {
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    edit(ok_group(file));
  }
  ConfigResult second = test::ok_config();
  second.id = "second";
  ResultWriter::open_for_resume(path, test::sample_provenance(), test::sample_system())
      .write_config(second);
  return path;
}

/// Expects `path` read with the ok configuration skipped as incomplete for a reason holding
/// `what`, "second" read, and --resume (ok_config_ids) running the skipped one again.
void expect_skipped_as_incomplete(const std::string& path, const std::string& what) {
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 1U);
  EXPECT_EQ(set.configs.front().id, "second");
  ASSERT_EQ(set.incomplete.size(), 1U);
  EXPECT_EQ(set.incomplete.front().id, test::ok_config().id);
  EXPECT_TRUE(contains(set.incomplete.front().reason, path + ": /configs/" + test::ok_config().id));
  EXPECT_TRUE(contains(set.incomplete.front().reason, what));
  const std::vector<std::string> ok_ids =
      ResultWriter::open_for_resume(path, test::sample_provenance(), test::sample_system())
          .ok_config_ids();
  EXPECT_EQ(ok_ids, std::vector<std::string>{"second"});
}

TEST(ResultFileErrors, AConfigurationMissingAnAttributeIsSkippedAndNamed) {
  const test::TempDir dir;
  const std::string path = file_with_edited_config(
      dir, [](hid_t group) { ASSERT_GE(H5Adelete(group, "throughput"), 0); });
  expect_skipped_as_incomplete(path, "missing attribute throughput");
}

TEST(ResultFileErrors, AConfigurationMissingItsStatusIsSkippedAndRunAgain) {
  const test::TempDir dir;
  const std::string path =
      file_with_edited_config(dir, [](hid_t group) { ASSERT_GE(H5Adelete(group, "status"), 0); });
  expect_skipped_as_incomplete(path, "missing attribute status");
}

TEST(ResultFileErrors, AConfigurationMissingADatasetIsSkippedAndNamed) {
  const test::TempDir dir;
  const std::string path = file_with_edited_config(
      dir, [](hid_t group) { ASSERT_GE(H5Ldelete(group, "phase_names", H5P_DEFAULT), 0); });
  expect_skipped_as_incomplete(path, "missing dataset phase_names");
}

// What an interrupted write of an older version left: /configs/<id> linked to an object that is
// not there (here a soft link to nothing; there a hard link past the end of the file).
TEST(ResultFileErrors, AConfigurationWhoseGroupCannotBeOpenedIsSkippedAndNamed) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id configs = test::open_object(file, "/configs");
    ASSERT_GE(H5Lcreate_soft("/nowhere", configs, "dangling", H5P_DEFAULT, H5P_DEFAULT), 0);
  }
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 1U);
  ASSERT_EQ(set.incomplete.size(), 1U);
  EXPECT_EQ(set.incomplete.front().id, "dangling");
  EXPECT_TRUE(
      contains(set.incomplete.front().reason, path + ": /configs/dangling: H5Oopen failed"));
  EXPECT_TRUE(
      contains(set.incomplete.front().reason, "the configuration's group cannot be opened"));
  const std::vector<std::string> ok_ids =
      ResultWriter::open_for_resume(path, test::sample_provenance(), test::sample_system())
          .ok_config_ids();
  EXPECT_EQ(ok_ids, std::vector<std::string>{test::ok_config().id});
}

TEST(ResultFileErrors, DatasetOfTheWrongShapeIsNamedWithTheExpectedShape) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    test::replace_int64_dataset(ok_group(file), "rank_memory_peak", {1, 2});  // 3 ranks
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, "/configs/" + test::ok_config().id + "/rank_memory_peak"));
  EXPECT_TRUE(contains(message, "shape [2]; expected [ranks] = [3]"));
}

TEST(ResultFileErrors, UnknownStatusIsNamed) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = ok_group(file);
    ASSERT_GE(H5Adelete(group, "status"), 0);
    test::put_string_attribute(group, "status", "finished");
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, "/configs/" + test::ok_config().id + " attribute status"));
  EXPECT_TRUE(
      contains(message, "'finished' is not one of ok, oom, timeout, error, skipped, cancelled"));
}

// The reader applies the writer's rules (UnstorableConfig below) to every configuration it
// reads: a file another program wrote, or one edited afterwards, fails naming the file, the
// configuration and what was expected. The sample ok configuration has 3 ranks, per_rank_batch
// 48+24+24 and global batch 96.
TEST(ResultFileErrors, ReadRejectsPerRankBatchOfAnotherLengthThanRanks) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    replace_int_attribute(ok_group(file), "ranks", 2);
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + test::ok_config().id + ": "));
  EXPECT_TRUE(contains(message, "per_rank_batch has 3 entries; expected one per rank (2)"));
}

TEST(ResultFileErrors, ReadRejectsRanksBelowOneBeforeAnyShape) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    replace_int_attribute(ok_group(file), "ranks", -2);
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + test::ok_config().id + ": "));
  EXPECT_TRUE(contains(message, "ranks is -2; expected >= 1"));
  EXPECT_FALSE(contains(message, "18446744073709551614"));  // -2 as an unsigned dimension
}

TEST(ResultFileErrors, ReadRejectsPerRankBatchThatDoesNotSumToTheGlobalBatch) {
  const test::TempDir dir;
  const std::string path = dir.file("timeout.h5");
  const ConfigResult timeout = test::timeout_config();  // 24+24+24+24 = 96, no datasets
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(timeout);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    replace_int_array_attribute(test::open_object(file, "/configs/" + timeout.id), "per_rank_batch",
                                {24, 24, 24, 20});
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + timeout.id + ": "));
  EXPECT_TRUE(contains(message, "per_rank_batch sums to 92; expected global_batch 96"));
}

TEST(ResultFileErrors, ACallThatFailsIsNamedWithThePath) {
  const test::TempDir dir;
  const std::string path = dir.file("taken.h5");
  std::filesystem::create_directory(path);  // a folder where the file should go
  const std::string message = error_of(
      [&] { ResultWriter::create(path, test::sample_provenance(), test::sample_system()); });
  // The file is built in memory and renamed over the path: the rename is the call that fails.
  EXPECT_TRUE(contains(message, path + ": cannot rename " + path + ".writing over it: "))
      << message;
  EXPECT_TRUE(std::filesystem::is_directory(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".writing"));
}

TEST(ResultFileErrors, AnAbsurdSizeInADamagedFileIsNamedNotThrownAsBadAlloc) {
  const std::string path =
      std::string(SCALETUNE_SOURCE_DIR) + "/tests/data/damaged/bit_flip_bad_alloc.h5";
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": a size read from the file cannot be allocated ("))
      << message;
  EXPECT_TRUE(contains(message, "the file is damaged or not a scaletune file")) << message;
}

TEST(ResultFileErrors, ParentThatCannotBeAFolderIsNamed) {
  const test::TempDir dir;
  std::ofstream(dir.file("plain.txt")) << "a file, not a folder\n";
  const std::string path = dir.file("plain.txt/run.h5");
  const std::string message = error_of(
      [&] { ResultWriter::create(path, test::sample_provenance(), test::sample_system()); });
  EXPECT_TRUE(contains(message, "cannot create directory " + dir.file("plain.txt")));
}

TEST(ResultFileErrors, SystemMustHoldOneRowPerRank) {
  const test::TempDir dir;
  SystemInfo system = test::sample_system();
  system.ranks.pop_back();
  const std::string message =
      error_of([&] { ResultWriter::create(dir.file("s.h5"), test::sample_provenance(), system); });
  EXPECT_TRUE(contains(message,
                       "/system: ranks holds 3 rows; expected one per rank of "
                       "world_size 4"));
}

TEST(ResultFileErrors, SystemDeviceKindMustBeHostOrCuda) {
  const test::TempDir dir;
  SystemInfo system = test::sample_system();
  system.device_kind = "gpu";
  const std::string message =
      error_of([&] { ResultWriter::create(dir.file("s.h5"), test::sample_provenance(), system); });
  EXPECT_TRUE(contains(message, "/system: device_kind is 'gpu'; expected host or cuda"));
}

TEST(ResultFileErrors, ReadRejectsAnUnknownDeviceKind) {
  const test::TempDir dir;
  const std::string path = write_ok_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = ok_group(file);
    ASSERT_GE(H5Adelete(group, "device_kind"), 0);
    test::put_string_attribute(group, "device_kind", "rocm");
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + test::ok_config().id + ": "));
  EXPECT_TRUE(contains(message, "device_kind is 'rocm'; expected host or cuda"));
}

TEST(ResultFileErrors, ProvenanceOfAnotherSchemaIsNotWritten) {
  const test::TempDir dir;
  Provenance provenance = test::sample_provenance();
  provenance.schema_version = 2;
  const std::string message =
      error_of([&] { ResultWriter::create(dir.file("p.h5"), provenance, test::sample_system()); });
  EXPECT_TRUE(contains(message, "cannot write schema_version 2"));
}

/// A change that makes a valid configuration unstorable, and a piece of the message it gets.
struct Unstorable {
  std::string name;
  std::function<void(ConfigResult&)> spoil;
  std::string message;
};

class UnstorableConfig : public ::testing::TestWithParam<Unstorable> {};

TEST_P(UnstorableConfig, IsRejectedAndNotWritten) {
  const test::TempDir dir;
  const std::string path = dir.file("reject.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ConfigResult config = test::ok_config();
  GetParam().spoil(config);
  const std::string message = error_of([&] { writer.write_config(config); });
  EXPECT_TRUE(contains(message, path + ": /configs"));
  EXPECT_TRUE(contains(message, GetParam().message));
  EXPECT_TRUE(read_results(path).configs.empty());
}

INSTANTIATE_TEST_SUITE_P(
    ResultFileErrors, UnstorableConfig,
    ::testing::Values(
        Unstorable{"IdWithSlash", [](ConfigResult& c) { c.id = "resnet50/r3"; },
                   "configuration id 'resnet50/r3' is not a group name"},
        Unstorable{"EmptyId", [](ConfigResult& c) { c.id.clear(); },
                   "configuration id '' is not a group name"},
        Unstorable{"PerRankBatchCount", [](ConfigResult& c) { c.per_rank_batch.pop_back(); },
                   "per_rank_batch has 2 entries; expected one per rank (3)"},
        Unstorable{"PerRankBatchSum", [](ConfigResult& c) { c.per_rank_batch[0] = 40; },
                   "per_rank_batch sums to 88; expected global_batch 96"},
        Unstorable{"PhaseTimeSize", [](ConfigResult& c) { c.rank_phase_time.pop_back(); },
                   "rank_phase_time holds 71 values; expected ranks * iterations * phases = 72"},
        Unstorable{"MemoryPeakSize", [](ConfigResult& c) { c.rank_memory_peak.push_back(1); },
                   "rank_memory_peak holds 4 values; expected ranks = 3"},
        Unstorable{"DataWithoutStepTime", [](ConfigResult& c) { c.step_time.clear(); },
                   "given without step_time"},
        Unstorable{"ExtraNamedLikeAFixedOne",
                   [](ConfigResult& c) { c.number_attrs["throughput"] = 1; },
                   "extra attribute 'throughput' would replace the fixed attribute"},
        Unstorable{"ExtraInBothMaps", [](ConfigResult& c) { c.text_attrs["width"] = "wide"; },
                   "'width' is in both number_attrs and text_attrs"},
        Unstorable{"DeviceKindOtherThanHostOrCuda", [](ConfigResult& c) { c.device_kind = ""; },
                   "device_kind is ''; expected host or cuda"},
        Unstorable{"ExtraNamedDeviceKind",
                   [](ConfigResult& c) { c.text_attrs["device_kind"] = "cuda"; },
                   "extra attribute 'device_kind' would replace the fixed attribute"}),
    [](const ::testing::TestParamInfo<Unstorable>& param) { return param.param.name; });

}  // namespace
}  // namespace scaletune::results
