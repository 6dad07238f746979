#include "harness/results/detail/launch_io.hpp"

#include <array>
#include <string>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/rank_table.hpp"
#include "harness/results/detail/text_members.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kGroup = "launch";
constexpr const char* kWorldSize = "world_size";

/// String attributes every launch group has.
const std::array<TextMember<LaunchRecord>, 2> kRequiredText{{
    {"started_utc", &LaunchRecord::started_utc},
    {"launcher", &LaunchRecord::launcher},
}};

/// String attributes present only when non-empty.
const std::array<TextMember<LaunchRecord>, 2> kOptionalText{{
    {"slurm_job_id", &LaunchRecord::slurm_job_id},
    {"slurm_step_id", &LaunchRecord::slurm_step_id},
}};

}  // namespace

void write_launch_group(hid_t config_group, const H5Where& at, const LaunchRecord& launch) {
  const Group group = create_group(config_group, at, kGroup);
  const H5Where where = at.child(kGroup);
  write_attribute(group.id(), where, kWorldSize, launch.world_size);
  write_text_members(group.id(), where, launch, kRequiredText, Presence::required);
  write_text_members(group.id(), where, launch, kOptionalText, Presence::when_set);
  write_rank_table(group.id(), where, launch.ranks);
}

std::optional<LaunchRecord> read_launch_group(hid_t config_group, const H5Where& at) {
  if (!has_link(config_group, at, kGroup)) return std::nullopt;
  const Group group = open_group(config_group, at, kGroup);
  const H5Where where = at.child(kGroup);
  LaunchRecord launch;
  launch.world_size = read_int_attribute(group.id(), where, kWorldSize);
  read_text_members(group.id(), where, launch, kRequiredText, Presence::required);
  read_text_members(group.id(), where, launch, kOptionalText, Presence::when_set);
  launch.ranks = read_rank_table(group.id(), where);
  return launch;
}

}  // namespace scaletune::results::detail
