#pragma once
// Where the tables of a benchmark log (nccl-tests, OSU) begin and end, and the check that a line
// inside one is either a row or noise real logs contain, never a row that could not be read.

#include <cstddef>
#include <string_view>
#include <vector>

#include "autotune/detail/log_text.hpp"

namespace scaletune::autotune::detail {

/// Whether the lines being read are inside a table. A column header or a row opens one; the
/// lines after the header up to the first row (the units row) stay inside it; after a row, a
/// blank or comment line ("# Out of bounds values", "# Avg bus bandwidth", a new test's
/// preamble) ends it, and a blank line ends it anywhere.
class TableSpan {
 public:
  /// A column header was read: a table opens, with no row yet.
  void header();
  /// A table row was read: the table goes on (or opens, for a table without a header).
  void row();
  /// A line names a new test: the table ends.
  void end();
  /// A line that is neither header nor row: ends the table when it is blank, or a comment
  /// after the first row.
  void other(const std::vector<std::string_view>& words);
  /// True between a header (or a first row) and the table's end.
  bool inside() const { return m_inside; }

 private:
  bool m_inside = false;
  bool m_has_rows = false;
};

/// Throws at `place` "column '<size_column>': expected a message size in bytes (an unsigned
/// integer), found '<word>'" when `words` (a line whose first word is no unsigned integer) is a
/// table row that cannot be read: inside a table, a first word that is number-like ("-16",
/// "+16", "16.5", "1e3", "16k", ".5") or a line of `columns` words (the table's row width);
/// outside one, a number-like first word on a line of `columns` words. Never for blank lines,
/// comments ('#'), NCCL's own messages ("host:pid:tid [0] NCCL INFO ...": a word "NCCL") or
/// elisions (a first word starting with "...").
void expect_no_unreadable_row(const std::vector<std::string_view>& words, bool inside_table,
                              std::size_t columns, std::string_view size_column,
                              const LogPlace& place);

}  // namespace scaletune::autotune::detail
