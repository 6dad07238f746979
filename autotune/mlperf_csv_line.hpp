#pragma once
// Splitting one line of a CSV file into its fields (RFC 4180 quoting), for the MLPerf Training
// results import (mlperf_import.hpp) and its tests.

#include <string>
#include <string_view>
#include <vector>

namespace scaletune::autotune {

/// The fields of one CSV line, in order, following RFC 4180 section 2: fields are separated by
/// ',', a field may be enclosed in '"' (then it may hold ',' and a doubled '""' stands for one
/// '"'). A line holds at least one field ("" gives one empty field). Newlines inside quoted fields
/// are not supported (the caller splits the file at every newline); a trailing '\r' (CRLF files)
/// is dropped. An unterminated quote keeps the rest of the line in the last field. Never throws
/// except std::bad_alloc.
std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace scaletune::autotune
