#pragma once
// The one place autotune reads result files.

#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// Reads the result file `path` (results::read_results). Throws results::ResultError naming the
/// path and what was expected when it is missing or not a schema_version 1 result file.
results::ResultSet load_results(const std::string& path);

}  // namespace scaletune::autotune
