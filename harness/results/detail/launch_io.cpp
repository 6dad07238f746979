#include "harness/results/detail/launch_io.hpp"

#include <array>
#include <string>
#include <utility>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/rank_table.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kGroup = "launch";
constexpr const char* kWorldSize = "world_size";

using TextMember = std::pair<const char*, std::string LaunchRecord::*>;

/// String attributes every launch group has.
const std::array<TextMember, 2> kRequiredText{{
    {"started_utc", &LaunchRecord::started_utc},
    {"launcher", &LaunchRecord::launcher},
}};

/// String attributes present only when non-empty.
const std::array<TextMember, 2> kOptionalText{{
    {"slurm_job_id", &LaunchRecord::slurm_job_id},
    {"slurm_step_id", &LaunchRecord::slurm_step_id},
}};

}  // namespace

void write_launch_group(hid_t config_group, const H5Where& at, const LaunchRecord& launch) {
  const Group group = create_group(config_group, at, kGroup);
  const H5Where where = at.child(kGroup);
  write_attribute(group.id(), where, kWorldSize, launch.world_size);
  for (const auto& [name, member] : kRequiredText)
    write_attribute(group.id(), where, name, launch.*member);
  for (const auto& [name, member] : kOptionalText)
    if (!(launch.*member).empty()) write_attribute(group.id(), where, name, launch.*member);
  write_rank_table(group.id(), where, launch.ranks);
}

std::optional<LaunchRecord> read_launch_group(hid_t config_group, const H5Where& at) {
  if (!has_link(config_group, at, kGroup)) return std::nullopt;
  const Group group = open_group(config_group, at, kGroup);
  const H5Where where = at.child(kGroup);
  LaunchRecord launch;
  launch.world_size = read_int_attribute(group.id(), where, kWorldSize);
  for (const auto& [name, member] : kRequiredText)
    launch.*member = read_string_attribute(group.id(), where, name);
  for (const auto& [name, member] : kOptionalText)
    if (has_attribute(group.id(), where, name))
      launch.*member = read_string_attribute(group.id(), where, name);
  launch.ranks = read_rank_table(group.id(), where);
  return launch;
}

}  // namespace scaletune::results::detail
