#pragma once
// What the lines around an OSU Micro-Benchmarks table say about its rows: the test (from the
// title line), the element type (from a "# Datatype:" line), the column layout (from the
// "# Size ..." header) and whether a line is inside the table.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/detail/log_table.hpp"
#include "autotune/detail/log_text.hpp"
#include "autotune/detail/osu_columns.hpp"
#include "autotune/detail/osu_tests.hpp"

namespace scaletune::autotune::detail {

/// The element type a "# Datatype: MPI_<T>." line names, as /collectives spells it: MPI_CHAR
/// "byte", MPI_INT "int32", MPI_FLOAT "float" (the types OSU's -T option takes); nullopt for a
/// line that is no Datatype line. Throws at `place` for another type.
std::optional<std::string> osu_dtype_named_in(const std::vector<std::string_view>& words,
                                              const LogPlace& place);

/// State carried from the non-row lines of an OSU log to the rows that follow.
class OsuContext {
 public:
  /// Reads one line that is not a table row (`words` are its words): a title starts a new test
  /// (its default dtype, no columns yet) and ends the table; a Datatype line sets the dtype; a
  /// "# Size" header sets the columns and opens a table; other lines end the table as
  /// TableSpan::other says. Throws at `place` for the title of a test that is not imported, a
  /// header before any title (osu_bibw, osu_put_bw and osu_bw print the same header), a bad
  /// header or an unknown datatype.
  void read(const std::vector<std::string_view>& words, std::string_view line,
            const LogPlace& place);
  /// Notes that a table row was read.
  void read_row() { m_table.row(); }

  /// The test of the current table; nullptr before the first header.
  const OsuTest* test() const { return m_columns ? m_test : nullptr; }
  /// Element type of the rows that follow.
  const std::string& dtype() const { return m_dtype; }
  /// Columns of the current table; call only where test() is not nullptr.
  const OsuColumns& columns() const { return *m_columns; }
  /// Words of a row of the current table (Size and the columns); 0 before the first header.
  std::size_t row_width() const { return m_columns ? m_columns->columns.size() + 1 : 0; }
  /// True inside a table (TableSpan), where a line must be a row or noise.
  bool in_table() const { return m_table.inside(); }

 private:
  void read_title(const OsuTitle& title, const LogPlace& place);

  const OsuTest* m_test = nullptr;
  std::string m_dtype = "byte";
  std::optional<OsuColumns> m_columns;
  TableSpan m_table;
};

}  // namespace scaletune::autotune::detail
