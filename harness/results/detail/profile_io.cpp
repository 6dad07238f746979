#include "harness/results/detail/profile_io.hpp"

#include <span>
#include <string>
#include <utility>

#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kMicroBatches = "micro_batches";
constexpr const char* kTime = "time_s";
constexpr const char* kSpread = "spread";
constexpr const char* kCapacity = "capacity_bytes";

/// Shapes, dimension names and units of the profile group's four datasets.
struct ProfileDatasets {
  DatasetSpec micro_batches, time_s, spread, capacity_bytes;
};

ProfileDatasets dataset_specs(hsize_t sizes, hsize_t ranks) {
  return {{{sizes}, "sizes", "samples"},
          {{ranks, sizes}, "ranks,sizes", "s"},
          {{ranks, sizes}, "ranks,sizes", ""},
          {{ranks}, "ranks", "bytes"}};
}

}  // namespace

void write_profile_group(hid_t config_group, const H5Where& at, const ProfileTable& profile) {
  const Group group = create_group(config_group, at, kProfileGroup);
  const H5Where where = at.child(kProfileGroup);
  const ProfileDatasets specs =
      dataset_specs(profile.micro_batches.size(), static_cast<hsize_t>(profile.ranks));
  write_dataset(group.id(), where, kMicroBatches, specs.micro_batches,
                std::span(profile.micro_batches));
  write_dataset(group.id(), where, kTime, specs.time_s, std::span(profile.time_s));
  write_dataset(group.id(), where, kSpread, specs.spread, std::span(profile.spread));
  write_dataset(group.id(), where, kCapacity, specs.capacity_bytes,
                std::span(profile.capacity_bytes));
}

std::optional<ProfileTable> read_profile_group(hid_t config_group, const H5Where& at, int ranks) {
  if (!has_link(config_group, at, kProfileGroup)) return std::nullopt;
  const Group group = open_group(config_group, at, kProfileGroup);
  const H5Where where = at.child(kProfileGroup);
  expect_type_class(group.id(), where, kMicroBatches, H5T_INTEGER);
  Array<std::int64_t> sizes = read_int64_dataset(group.id(), where, kMicroBatches);
  const ProfileDatasets specs = dataset_specs(sizes.values.size(), static_cast<hsize_t>(ranks));
  expect_shape(sizes.dims, specs.micro_batches, where, kMicroBatches);
  ProfileTable profile;
  profile.micro_batches = std::move(sizes.values);
  profile.ranks = ranks;
  profile.time_s =
      read_checked(group.id(), where, kTime, H5T_FLOAT, specs.time_s, read_double_dataset);
  profile.spread =
      read_checked(group.id(), where, kSpread, H5T_FLOAT, specs.spread, read_double_dataset);
  profile.capacity_bytes = read_checked(group.id(), where, kCapacity, H5T_INTEGER,
                                        specs.capacity_bytes, read_int64_dataset);
  return profile;
}

}  // namespace scaletune::results::detail
