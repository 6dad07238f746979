#pragma once
// The check the log fuzz targets make of the rows a collective log parser returns.

#include <cmath>
#include <vector>

#include "autotune/collective_log.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace scaletune::fuzz {

/// Checks what collective_log.hpp promises of every row: an op, a time > 0, bytes, ranks and
/// nodes >= 0, finite bandwidths >= 0.
inline void check_rows(const std::vector<autotune::CollectiveRow>& rows) {
  expect(!rows.empty(), "a parsed log has a row");
  for (const autotune::CollectiveRow& row : rows) {
    expect(!row.op.empty(), "every row names its op");
    expect(finite_positive(row.time_us), "time_us is finite and > 0");
    expect(row.bytes >= 0 && row.ranks >= 0 && row.nodes >= 0, "bytes, ranks, nodes >= 0");
    expect(std::isfinite(row.algbw_gbps) && row.algbw_gbps >= 0, "algbw is finite and >= 0");
    expect(std::isfinite(row.busbw_gbps) && row.busbw_gbps >= 0, "busbw is finite and >= 0");
  }
}

}  // namespace scaletune::fuzz
