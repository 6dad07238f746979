// The /configs/<id>/profile group (the ProfileTable a transformer's proportional or auto split was
// planned from): written and read back equal, with the documented layout; absent reads as
// std::nullopt; wrong shapes rejected by the writer before anything is written and by the reader
// naming the file, the configuration and the dataset.
#include <gtest/gtest.h>

#include <cstdint>
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

/// Three ranks profiled at micro-batches 1, 2, 4 and 6 (rank 2 twice as fast, rank 1 without a
/// memory limit).
ProfileTable sample_profile() {
  ProfileTable p;
  p.micro_batches = {1, 2, 4, 6};
  p.ranks = 3;
  p.time_s = {0.011, 0.021, 0.041,  0.061,  0.012,  0.022,
              0.042, 0.062, 0.0055, 0.0105, 0.0205, 0.0305};
  p.spread = {0.01, 0.02, 0.015, 0.01, 0.2, 0.1, 0.05, 0.04, 0, 0, 0.003, 0.001};
  p.capacity_bytes = {std::int64_t{1} << 30, 0, std::int64_t{36} << 20};
  return p;
}

ConfigResult profiled_config() {
  ConfigResult c = test::ok_config();
  c.id = "transformer-r3-b24-auto-fp32-zero2";
  c.workload = "transformer";
  c.profile = sample_profile();
  return c;
}

std::string write_profiled_file(const test::TempDir& dir) {
  const std::string path = dir.file("profiled.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(profiled_config());
  return path;
}

std::string profile_path() {
  return "/configs/" + profiled_config().id + "/profile";
}

TEST(ResultProfile, RoundTripReadsBackEqual) {
  const test::TempDir dir;
  const ResultSet set = read_results(write_profiled_file(dir));
  ASSERT_EQ(set.configs.size(), 1u);
  ASSERT_TRUE(set.configs[0].profile.has_value());
  const ProfileTable& got = *set.configs[0].profile;
  const ProfileTable want = sample_profile();
  EXPECT_EQ(got.micro_batches, want.micro_batches);
  EXPECT_EQ(got.ranks, want.ranks);
  EXPECT_EQ(got.time_s, want.time_s);  // float64 stored unchanged
  EXPECT_EQ(got.spread, want.spread);
  EXPECT_EQ(got.capacity_bytes, want.capacity_bytes);
}

/// sample_profile with the optional parts an imported profile has.
ProfileTable imported_profile() {
  ProfileTable p = sample_profile();
  p.devices = {"l4", "a6000", "p40"};
  p.accumulation_overhead_s = {0.32, 0.32, 0.5};
  p.memory_model = ProfileTable::MemoryTerms{4.4e10, 2.9e9, 3.98e8};
  return p;
}

std::string write_imported_file(const test::TempDir& dir) {
  const std::string path = dir.file("imported.h5");
  ConfigResult c = profiled_config();
  c.profile = imported_profile();
  ResultWriter::create(path, test::sample_provenance(), test::sample_system()).write_config(c);
  return path;
}

TEST(ResultProfile, OptionalPartsRoundTripAndAreAbsentWhenNotGiven) {
  const test::TempDir dir;
  const ProfileTable got = *read_results(write_imported_file(dir)).configs.at(0).profile;
  const ProfileTable want = imported_profile();
  EXPECT_EQ(got.devices, want.devices);
  EXPECT_EQ(got.accumulation_overhead_s, want.accumulation_overhead_s);
  ASSERT_TRUE(got.memory_model.has_value());
  EXPECT_EQ(got.memory_model->state_bytes, 4.4e10);
  EXPECT_EQ(got.memory_model->replicated_bytes, 2.9e9);
  EXPECT_EQ(got.memory_model->activation_bytes_per_sample, 3.98e8);
  const ProfileTable plain = *read_results(write_profiled_file(dir)).configs.at(0).profile;
  EXPECT_TRUE(plain.devices.empty());
  EXPECT_TRUE(plain.accumulation_overhead_s.empty());
  EXPECT_FALSE(plain.memory_model.has_value());
}

TEST(ResultProfile, ReaderRejectsAMemoryModelMissingATerm) {
  const test::TempDir dir;
  const std::string path = write_imported_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = test::open_object(file, profile_path());
    ASSERT_GE(H5Adelete(group, "replicated_bytes"), 0);
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": " + profile_path())) << message;
  EXPECT_TRUE(contains(message, "holds 2 of the memory model's 3 attributes")) << message;
}

TEST(ResultProfile, GroupHasTheDocumentedLayout) {
  const test::TempDir dir;
  const test::Id file = test::open_file(write_profiled_file(dir));
  const test::Id group = test::open_object(file, profile_path());
  ASSERT_GE(group, 0);
  struct Expected {
    const char* name;
    H5T_class_t type_class;
    std::vector<hsize_t> shape;
    const char* units;
    const char* dims;
  };
  for (const Expected& want : {Expected{"micro_batches", H5T_INTEGER, {4}, "samples", "sizes"},
                               Expected{"time_s", H5T_FLOAT, {3, 4}, "s", "ranks,sizes"},
                               Expected{"spread", H5T_FLOAT, {3, 4}, "", "ranks,sizes"},
                               Expected{"capacity_bytes", H5T_INTEGER, {3}, "bytes", "ranks"}}) {
    SCOPED_TRACE(want.name);
    const test::Id dataset = test::open_object(group, want.name);
    ASSERT_GE(dataset, 0);
    const test::Id type{H5Dget_type(dataset), H5Tclose};
    EXPECT_EQ(test::type_info(type).type_class, want.type_class);
    EXPECT_EQ(test::type_info(type).size_bytes, 8u);
    EXPECT_EQ(test::dataset_shape(dataset), want.shape);
    EXPECT_EQ(test::string_attribute(dataset, "units"), want.units);
    EXPECT_EQ(test::string_attribute(dataset, "dims"), want.dims);
  }
}

TEST(ResultProfile, ConfigurationWithoutTheGroupReadsAsNullopt) {
  const test::TempDir dir;
  const std::string path = dir.file("plain.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(test::ok_config());
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 1u);
  EXPECT_FALSE(set.configs[0].profile.has_value());
}

struct BadProfile {
  std::string name;
  std::function<void(ProfileTable&)> spoil;
  std::string message;
};

class WriterRejectsProfile : public ::testing::TestWithParam<BadProfile> {};

TEST_P(WriterRejectsProfile, WithoutCreatingTheConfigGroup) {
  const test::TempDir dir;
  const std::string path = dir.file("reject.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ConfigResult config = profiled_config();
  GetParam().spoil(*config.profile);
  const std::string message = error_of([&] { writer.write_config(config); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + config.id + ": ")) << message;
  EXPECT_TRUE(contains(message, GetParam().message)) << message;
  EXPECT_TRUE(read_results(path).configs.empty());
}

INSTANTIATE_TEST_SUITE_P(
    ResultProfile, WriterRejectsProfile,
    ::testing::Values(BadProfile{"TimesShort", [](ProfileTable& p) { p.time_s.pop_back(); },
                                 "profile.time_s holds 11 values; expected ranks * sizes = 12"},
                      BadProfile{"SpreadLong", [](ProfileTable& p) { p.spread.push_back(0); },
                                 "profile.spread holds 13 values; expected ranks * sizes = 12"},
                      BadProfile{"CapacityShort",
                                 [](ProfileTable& p) { p.capacity_bytes.pop_back(); },
                                 "profile.capacity_bytes holds 2 values; expected ranks = 3"},
                      BadProfile{"OtherRankCount", [](ProfileTable& p) { p.ranks = 2; },
                                 "profile.ranks is 2; expected the configuration's ranks (3)"},
                      BadProfile{"DevicesShort",
                                 [](ProfileTable& p) {
                                   p.devices = {"l4", "p40"};
                                 },
                                 "profile.device holds 2 values; expected ranks = 3"},
                      BadProfile{"OverheadLong",
                                 [](ProfileTable& p) {
                                   p.accumulation_overhead_s = {1, 2, 3, 4};
                                 },
                                 "profile.accumulation_overhead_s holds 4 values; expected ranks = "
                                 "3"}),
    [](const ::testing::TestParamInfo<BadProfile>& param) { return param.param.name; });

TEST(ResultProfile, ReaderRejectsCapacitiesOfTheWrongShape) {
  const test::TempDir dir;
  const std::string path = write_profiled_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    const test::Id group = test::open_object(file, profile_path());
    test::replace_int64_dataset(group, "capacity_bytes", {1, 2});  // [2], not [3]
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": " + profile_path() + "/capacity_bytes: ")) << message;
  EXPECT_TRUE(contains(message, "shape [2]; expected [ranks] = [3]")) << message;
}

}  // namespace
}  // namespace scaletune::results
