#pragma once
// Reading result files in the commands: the configurations the reader skipped (incomplete, as
// an interrupted write of an older version left them) are named on standard error.

#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::cli {

/// Reads the result file `path` (results::read_results; its errors pass through) and writes a
/// line to standard error for each configuration it skipped: "scaletune <command>: warning:
/// <the reader's reason>; configuration <id> skipped (scaletune run --resume runs it again)".
results::ResultSet read_result_file(const std::string& command, const std::string& path);

}  // namespace scaletune::cli
