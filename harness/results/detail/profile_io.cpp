#include "harness/results/detail/profile_io.hpp"

#include <span>
#include <string>
#include <utility>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kMicroBatches = "micro_batches";
constexpr const char* kTime = "time_s";
constexpr const char* kSpread = "spread";
constexpr const char* kCapacity = "capacity_bytes";
constexpr const char* kDevice = "device";
constexpr const char* kOverhead = "accumulation_overhead_s";
constexpr const char* kStateBytes = "state_bytes";
constexpr const char* kReplicatedBytes = "replicated_bytes";
constexpr const char* kActivationBytes = "activation_bytes_per_sample";

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

/// The optional per-rank datasets and memory-model attributes of `profile`.
void write_optional_parts(hid_t group, const H5Where& where, const ProfileTable& profile) {
  const auto ranks = static_cast<hsize_t>(profile.ranks);
  if (!profile.devices.empty())
    write_dataset(group, where, kDevice, {{ranks}, "ranks", ""}, std::span(profile.devices));
  if (!profile.accumulation_overhead_s.empty())
    write_dataset(group, where, kOverhead, {{ranks}, "ranks", "s"},
                  std::span(profile.accumulation_overhead_s));
  if (!profile.memory_model) return;
  write_attribute(group, where, kStateBytes, profile.memory_model->state_bytes);
  write_attribute(group, where, kReplicatedBytes, profile.memory_model->replicated_bytes);
  write_attribute(group, where, kActivationBytes,
                  profile.memory_model->activation_bytes_per_sample);
}

/// Reads the optional parts into `profile` (whose ranks is set). Throws ResultError naming a
/// dataset of another type class or shape, or a memory model with some of its terms missing.
void read_optional_parts(hid_t group, const H5Where& where, ProfileTable& profile) {
  const DatasetSpec per_rank{{static_cast<hsize_t>(profile.ranks)}, "ranks", ""};
  if (has_link(group, where, kDevice))
    profile.devices =
        read_checked(group, where, kDevice, H5T_STRING, per_rank, read_string_dataset);
  if (has_link(group, where, kOverhead))
    profile.accumulation_overhead_s =
        read_checked(group, where, kOverhead, H5T_FLOAT, per_rank, read_double_dataset);
  const int terms = has_attribute(group, where, kStateBytes) +
                    has_attribute(group, where, kReplicatedBytes) +
                    has_attribute(group, where, kActivationBytes);
  if (terms == 0) return;
  if (terms != 3)
    where.fail(std::string("holds ") + std::to_string(terms) +
               " of the memory model's 3 attributes (" + kStateBytes + ", " + kReplicatedBytes +
               ", " + kActivationBytes + "); expected all or none");
  profile.memory_model =
      ProfileTable::MemoryTerms{read_double_attribute(group, where, kStateBytes),
                                read_double_attribute(group, where, kReplicatedBytes),
                                read_double_attribute(group, where, kActivationBytes)};
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
  write_optional_parts(group.id(), where, profile);
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
  read_optional_parts(group.id(), where, profile);
  return profile;
}

}  // namespace scaletune::results::detail
