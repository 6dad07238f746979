#pragma once
// The /configs/<id>/profile group: the micro-batch profile a configuration's batch split was
// planned from (ProfileTable in result_types.hpp; names, shapes and units in results/README.md).

#include <optional>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// The group below a configuration group that holds its ProfileTable.
inline constexpr const char* kProfileGroup = "profile";

/// Writes group `profile` below the configuration group `config_group` (at `at`): datasets
/// micro_batches int64 [sizes], time_s float64 [ranks, sizes] s, spread float64 [ranks, sizes]
/// and capacity_bytes int64 [ranks] bytes, each with its units and dims attributes. The caller
/// checks the shapes first (check_storable in config_check.hpp).
void write_profile_group(hid_t config_group, const H5Where& at, const ProfileTable& profile);

/// Reads group `profile` of the configuration group `config_group` (at `at`) of a configuration
/// with `ranks` (>= 1) ranks; std::nullopt when the group is absent. Throws ResultError naming
/// the dataset (/configs/<id>/profile/<name>) when one is missing, is stored with another type
/// class (micro_batches, capacity_bytes integer; time_s, spread float) or has another shape than
/// the one above (sizes: the length of micro_batches).
std::optional<ProfileTable> read_profile_group(hid_t config_group, const H5Where& at, int ranks);

}  // namespace scaletune::results::detail
