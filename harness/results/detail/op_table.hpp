#pragma once
// /ops: one compound row per op microbenchmark (op, dtype, device strings, rank int32, shape
// string, time_s, time_iqr_s float64, repeats int32, flops, bytes float64, reuse float64[17]),
// written once by `scaletune profile`.

#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

inline constexpr const char* kOpsName = "ops";

/// Writes dataset /ops of `file` (at `root`), replacing none: throws ResultError naming /ops
/// when it exists already or HDF5 fails.
void write_op_rows(hid_t file, const H5Where& root, const std::vector<OpTiming>& rows);

/// Reads /ops of `file`; empty when the file has none. Throws ResultError naming /ops when it
/// is not a one-dimensional compound table with every field of the right type class.
std::vector<OpTiming> read_op_rows(hid_t file, const H5Where& root);

}  // namespace scaletune::results::detail
