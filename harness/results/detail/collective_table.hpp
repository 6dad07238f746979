#pragma once
// /collectives: one compound row per collective result (op string, dtype string, bytes int64,
// ranks int32, time_us float64, algbw_GBps float64, busbw_GBps float64, wrong int64, source
// string), as DESIGN.md "Result file" names the fields, plus in_place int8 and nodes int32
// (optional on read: 0 when a table lacks them). The dataset is 1-D, chunked and
// extendible, so results can be appended as they come.

#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

inline constexpr const char* kCollectivesName = "collectives";

/// Appends `rows` to dataset /collectives of `file` (at `root`), creating it (with units ""
/// and dims "rows") when absent. Throws ResultError naming /collectives when a stored table
/// lacks a field, is stored without chunking (cannot grow) or HDF5 fails.
void append_collective_rows(hid_t file, const H5Where& root,
                            const std::vector<CollectiveResult>& rows);

/// Reads /collectives of `file`; empty when the file has none. Throws ResultError naming
/// /collectives when it is not a one-dimensional compound table with every field, each of
/// the right type class (integer, float, string).
std::vector<CollectiveResult> read_collective_rows(hid_t file, const H5Where& root);

}  // namespace scaletune::results::detail
