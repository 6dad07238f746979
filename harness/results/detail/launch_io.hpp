#pragma once
// The /configs/<id>/launch group: the launch that ran a configuration and the world ranks,
// hosts and devices of its ranks (LaunchRecord in result_types.hpp; results/README.md).

#include <optional>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// Writes group `launch` below the configuration group `config_group` (at `at`): attribute
/// world_size (int32), started_utc and launcher (strings), slurm_job_id and slurm_step_id
/// (strings, only when non-empty),
/// and dataset ranks, one compound row per configuration rank as /system/ranks has them
/// (rank_table.hpp). The caller checks the record first (check_storable in config_check.hpp).
void write_launch_group(hid_t config_group, const H5Where& at, const LaunchRecord& launch);

/// Reads group `launch` of the configuration group `config_group` (at `at`); std::nullopt when
/// the group is absent. slurm_job_id and slurm_step_id read back as "" when absent.
/// Throws ResultError naming /configs/<id>/launch and the attribute or dataset when one is
/// missing or unreadable.
std::optional<LaunchRecord> read_launch_group(hid_t config_group, const H5Where& at);

}  // namespace scaletune::results::detail
