#pragma once
// /system/ranks and /configs/<id>/launch/ranks: one compound row per rank (rank int32, host
// string, local_rank int32, device string, memory_bytes int64), as DESIGN.md "Result file"
// lays out /system/ranks.

#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// Writes compound dataset `ranks` [ranks.size()] into `group` (at `where`), with
/// units "" (each field's unit is in its name: memory_bytes) and dims "ranks".
void write_rank_table(hid_t group, const H5Where& where, const std::vector<RankInfo>& ranks);

/// Reads compound dataset `ranks` of `group`; fields are matched by name.
/// Throws ResultError when it is missing, not one-dimensional, or lacks a field.
std::vector<RankInfo> read_rank_table(hid_t group, const H5Where& where);

}  // namespace scaletune::results::detail
