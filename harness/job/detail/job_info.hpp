#pragma once
// Reading and checking the [job] table of a job file.

#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Whether `name` is a valid job name (also the rule for DLRM table and plan names): 1 to 128
/// characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-'.
bool valid_name(std::string_view name);

/// Reads [job]: name (required; 1 to 128 characters of A-Z a-z 0-9 . _ -, not starting with
/// '.' or '-', since it becomes a file name) and output (default "results/<name>.h5"; a path
/// ending in ".h5" with a file name before it and no control characters such as NUL or
/// newline). Throws JobError at the offending node.
JobInfo read_job_info(const TableReader& job);

}  // namespace scaletune::job::detail
