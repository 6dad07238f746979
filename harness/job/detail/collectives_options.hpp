#pragma once
// [workload] options of kind "collectives" (job.hpp CollectivesOptions).

#include <span>
#include <string>
#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// ops, min_bytes, max_bytes, step_factor, dtype, redop, in_place.
std::span<const std::string_view> collectives_option_keys();

/// Fills spec.collectives: ops (non-empty list of distinct collective_op_text names; default
/// all of kCollectiveOps, in that order), min_bytes and max_bytes (integers in [1, 2^40] with
/// max_bytes >= min_bytes), step_factor (number in (1, 1024], giving at most
/// kMaxCollectiveSizes sizes), dtype (fp32 | fp64 | fp16 | bf16 | int32 | int64), redop
/// (sum | avg), in_place (boolean); absent keys keep their defaults. Throws JobError at the
/// offending key (max_bytes below min_bytes: at max_bytes, naming both; at min_bytes when
/// max_bytes is absent).
void read_collectives_options(const TableReader& workload, WorkloadSpec& spec);

/// "ops=all_reduce,broadcast min_bytes=8 max_bytes=65536 step_factor=4 sizes_per_op=7
/// dtype=fp32 redop=sum in_place=true" (sizes_per_op: how many collective_sizes() gives).
std::string describe_collectives_options(const WorkloadSpec& spec);

}  // namespace scaletune::job::detail
