#pragma once
// What the lines around an nccl-tests table say about its rows: the op, the rank count, the
// column layout and whether a line is inside the table.

#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "autotune/detail/log_table.hpp"
#include "autotune/detail/log_text.hpp"
#include "autotune/detail/nccl_tests_columns.hpp"

namespace scaletune::autotune::detail {

/// The op named in `line` by an nccl-tests binary ("./build/all_reduce_perf -b 8" ->
/// "all_reduce", "# Collective test starting: alltoall_perf" -> "alltoall") or by a
/// "# op: <op>" comment; empty when it names none.
std::string op_named_in(std::string_view line);

/// State carried from the non-row lines of an nccl-tests log to the rows that follow.
class NcclTestsContext {
 public:
  /// Reads one line that is not a table row: a column header sets the layout and opens a
  /// table; a "# Rank N ... on HOST device ..." line counts a rank and its host; a "# nThread"
  /// or "# Collective test starting:" line starts a new test (rank and host counts back to 0);
  /// a line naming an op sets it; either ends
  /// the table, as TableSpan::other says blank and comment lines do. Throws at `place` for a
  /// bad header.
  void read(std::string_view line, const LogPlace& place);
  /// Notes that a table row was read (it opens a table where no header came before).
  void read_row() { m_table.row(); }

  /// Op of the rows that follow; "unknown" until a line names one.
  const std::string& op() const { return m_op; }
  /// "# Rank" lines seen since the current test started; 0 when none.
  int ranks() const { return m_ranks; }
  /// Distinct hosts the "# Rank" lines since the current test started name; 0 when none does.
  int nodes() const { return static_cast<int>(m_hosts.size()); }
  /// Layout of the current table (the current nccl-tests layout until a header is read).
  const NcclTestsColumns& columns() const { return m_columns; }
  /// True inside a table (TableSpan), where a line must be a row or noise.
  bool in_table() const { return m_table.inside(); }

 private:
  std::string m_op = "unknown";
  int m_ranks = 0;
  std::set<std::string, std::less<>> m_hosts;
  NcclTestsColumns m_columns;
  TableSpan m_table;
};

}  // namespace scaletune::autotune::detail
