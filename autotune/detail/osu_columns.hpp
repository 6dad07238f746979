#pragma once
// The columns of one OSU Micro-Benchmarks table, read from its "# Size ..." header, and the
// values of one row read with them. The layout is c/util/osu_util_mpi.c's print_only_header:
// Size, the measure ("Avg Latency(us)"; "Bandwidth (MB/s)"), with -f "Min Latency(us) Max
// Latency(us) Iterations", with -c "Validation", with --tail-lat "P<n> Tail Lat(us)" (bandwidth
// tests: "P<n> Tail BW(MB/s)") columns.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/detail/log_text.hpp"
#include "autotune/detail/osu_tests.hpp"

namespace scaletune::autotune::detail {

/// What a column after Size holds.
enum class OsuColumnKind {
  measure,     ///< the test's measure (OsuMeasure): latency or bandwidth
  number,      ///< a statistic read only to check it: min, max, tail latency or bandwidth
  count,       ///< Iterations: an integer
  validation,  ///< "Pass" or "Fail"
};

/// One column after Size: its name as the header prints it ("Min Latency(us)") and its kind.
struct OsuColumn {
  std::string name;
  OsuColumnKind kind = OsuColumnKind::number;
};

/// The columns after Size of one OSU table.
struct OsuColumns {
  OsuMeasure measure = OsuMeasure::latency_us;
  std::vector<OsuColumn> columns;  ///< the first is the measure
};

/// True when `words`, a line's words, are an OSU table header: "#", "Size", ....
bool is_osu_header(const std::vector<std::string_view>& words);

/// The columns named by the header `words` ("#", "Size", "Avg", "Latency(us)", ...; see
/// is_osu_header). Throws at `place` when the first column is not `measure`'s or a column is
/// one OSU does not print for it.
OsuColumns osu_columns_from_header(const std::vector<std::string_view>& words, OsuMeasure measure,
                                   const LogPlace& place);

/// The values of one row, as printed.
struct OsuValues {
  std::int64_t size = 0;    ///< the Size column, bytes
  double measure = 0.0;     ///< latency, us, or bandwidth, MB/s; > 0
  std::int64_t wrong = -1;  ///< Validation "Pass" 0, "Fail" 1; -1 without the column
};

/// Reads a row's words with `columns`. Throws at `place` when the column count differs from
/// the header's, a value is not a number (Iterations: an integer), the measure is not > 0, the
/// validation is neither Pass nor Fail, or a bandwidth row's Size is 0.
OsuValues read_osu_row(const std::vector<std::string_view>& words, const OsuColumns& columns,
                       const LogPlace& place);

}  // namespace scaletune::autotune::detail
