#pragma once
// The /collectives rows of a result file as `scaletune inspect` prints them.

#include <span>
#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// A title line ("/collectives: <n> rows, by op, ranks, bytes and place") and a console table
/// (header, units row, rule) of `rows` sorted by op, then ranks, then bytes, then out-of-place
/// before in-place (file order otherwise): op, dtype, ranks, bytes (with thousands separators),
/// place ("out" for out of place, "in" for in place), time (us, two decimals), algbw and busbw
/// (GB/s = 1e9 bytes/s, two decimals), wrong ("-" when unknown, -1 in the file), source. An
/// empty string when `rows` is empty.
std::string collectives_table(std::span<const results::CollectiveResult> rows);

}  // namespace scaletune::autotune
