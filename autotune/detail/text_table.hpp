#pragma once
// A table of text cells rendered as Markdown or as a plain console table with a units row.

#include <string>
#include <vector>

namespace scaletune::autotune::detail {

/// Cells are already formatted; every row has header.size() cells.
struct TextTable {
  std::vector<std::string> header;             ///< [columns]
  std::vector<std::string> units;              ///< [columns]; "" where a column has none
  std::vector<std::vector<std::string>> rows;  ///< [rows][columns]
};

/// GitHub-flavoured Markdown: "name (unit)" headers, first column left-aligned, the rest
/// right-aligned; every cell through markdown_text (markdown_text.hpp).
std::string to_markdown(const TextTable& table);

/// Console table: header row, units row, a rule, then the rows; columns padded to their widest
/// cell, two spaces between columns. `left_aligned` ([columns]) names the left-aligned columns,
/// the rest are right-aligned; empty: the first column only.
std::string to_plain(const TextTable& table, const std::vector<bool>& left_aligned = {});

}  // namespace scaletune::autotune::detail
