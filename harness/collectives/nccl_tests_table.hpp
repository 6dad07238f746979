#pragma once
// The collective benchmark's printed output, in nccl-tests' layout (nccl-tests src/common.cu:
// the same columns, widths and time precision), so a user can diff the two tools' logs and
// scaletune import nccl-tests can read it back.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scaletune::collectives {

/// Time and bandwidths of one placement of one row.
struct PlacementFigures {
  double time_us = 0.0;     ///< mean time of one op over the ranks, µs
  double algbw_gbps = 0.0;  ///< bytes / time, GB/s (GB = 1e9 bytes)
  double busbw_gbps = 0.0;  ///< algbw x nccl-tests bus factor of the op, GB/s
  std::int64_t wrong = -1;  ///< wrong elements over all ranks; -1 prints N/A
};

/// One printed row.
struct TableRow {
  std::int64_t bytes = 0;  ///< nccl-tests size, bytes
  std::size_t count = 0;   ///< nccl-tests count, elements
  std::string_view type;   ///< "float", "bfloat16", ... (core::dtype_name)
  std::string_view redop;  ///< "sum", "avg", or "none" for ops that do not reduce
  int root = -1;           ///< broadcast root, -1 otherwise
  std::optional<PlacementFigures> out_of_place;
  std::optional<PlacementFigures> in_place;  ///< nullopt prints N/A columns (not timed)
};

/// What the lines above a test's table say.
struct TestPreamble {
  std::string op;  ///< e.g. "all_reduce" (printed as the nccl-tests binary "all_reduce_perf")
  std::string backend;
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  double step_factor = 2.0;
  int warmup = 0;
  int iterations = 0;
  std::vector<std::string> rank_lines;  ///< one description per rank, e.g. "on host1 device 0"
};

/// "# Collective test starting: <op>_perf", the sizes and iterations, the "#  Rank r ..." lines
/// and the three column-header lines.
std::string test_start(const TestPreamble& p);

/// One row: "%12li  %12li  %8s  %6s  %6i" then per placement "  %7s  %6.2f  %6.2f  %5s"
/// (time with 2, 1 or 0 decimals below 100 µs, below 10 ms, above; wrong or N/A).
std::string table_row(const TableRow& row);

/// The lines after a test's table: wrong elements in total, the average bus bandwidth of the
/// printed busbw values (nccl-tests "Avg bus bandwidth") and "# Collective test concluded".
std::string test_end(const std::string& op, std::int64_t wrong, double avg_busbw_gbps);

}  // namespace scaletune::collectives
