#include "harness/results/detail/system_io.hpp"

#include <array>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/rank_table.hpp"
#include "harness/results/detail/text_members.hpp"
#include "harness/results/launch_record.hpp"

namespace scaletune::results::detail {
namespace {

constexpr const char* kGroup = "system";

/// String attributes every /system has.
const std::array<TextMember<SystemInfo>, 4> kRequiredText{{
    {"mpi_library", &SystemInfo::mpi_library},
    {"kokkos_version", &SystemInfo::kokkos_version},
    {"kokkos_backend", &SystemInfo::kokkos_backend},
    {"blas", &SystemInfo::blas},
}};

/// String attributes present only when non-empty: cuda_runtime and nccl_version when the run
/// used that library, the slurm_* ones inside a Slurm job, launcher in every file a run writes
/// (files from before launch detection lack it).
const std::array<TextMember<SystemInfo>, 6> kOptionalText{{
    {"cuda_runtime", &SystemInfo::cuda_runtime},
    {"nccl_version", &SystemInfo::nccl_version},
    {"launcher", &SystemInfo::launcher},
    {"slurm_job_id", &SystemInfo::slurm_job_id},
    {"slurm_nodelist", &SystemInfo::slurm_nodelist},
    {"slurm_step_id", &SystemInfo::slurm_step_id},
}};

/// String attributes every file a run writes has, and files written before them lack: reading such
/// a file leaves the member's default (device_kind "host").
const std::array<TextMember<SystemInfo>, 1> kDefaultedText{{
    {"device_kind", &SystemInfo::device_kind},
}};

/// Throws ResultError unless there is one rank row per rank of the world, the launcher, when
/// given, is one a result file names and the device kind is one too.
void check_world(const SystemInfo& system, const H5Where& where) {
  if (system.ranks.size() != static_cast<std::size_t>(system.world_size))
    where.fail("ranks holds " + std::to_string(system.ranks.size()) +
               " rows; expected one per rank of world_size " + std::to_string(system.world_size));
  if (!system.launcher.empty() && !is_launcher_name(system.launcher))
    where.fail("launcher is '" + system.launcher + "'; expected mpirun, srun or singleton");
  if (!is_device_kind_name(system.device_kind))
    where.fail("device_kind is '" + system.device_kind + "'; expected host or cuda");
}

}  // namespace

void write_system(hid_t file, const H5Where& root, const SystemInfo& system) {
  const H5Where where = root.child(kGroup);
  if (system.world_size == 0) {
    if (has_link(file, root, kGroup)) SCALETUNE_H5(where, H5Ldelete(file, kGroup, H5P_DEFAULT));
    return;
  }
  check_world(system, where);
  const Group group = create_group(file, root, kGroup);
  write_attribute(group.id(), where, "world_size", system.world_size);
  write_text_members(group.id(), where, system, kRequiredText, Presence::required);
  write_text_members(group.id(), where, system, kOptionalText, Presence::when_set);
  write_text_members(group.id(), where, system, kDefaultedText, Presence::required);
  write_rank_table(group.id(), where, system.ranks);
}

std::optional<SystemInfo> read_system(hid_t file, const H5Where& root) {
  if (!has_link(file, root, kGroup)) return std::nullopt;
  const H5Where where = root.child(kGroup);
  const Group group = open_group(file, root, kGroup);
  SystemInfo system;
  system.world_size = read_int_attribute(group.id(), where, "world_size");
  read_text_members(group.id(), where, system, kRequiredText, Presence::required);
  read_text_members(group.id(), where, system, kOptionalText, Presence::when_set);
  read_text_members(group.id(), where, system, kDefaultedText, Presence::when_set);
  system.ranks = read_rank_table(group.id(), where);
  check_world(system, where);
  return system;
}

}  // namespace scaletune::results::detail
