#pragma once
// The root attributes a command of this binary writes into a result file.

#include "harness/results/result_types.hpp"

namespace scaletune::cli {

/// Provenance of a file written by this binary for the command `argv[0..argc)`:
/// scaletune_version, git_sha, build_type (build_info.hpp) and command_line (argv joined by
/// spaces). created_utc and job_toml are left empty for the command to fill in.
results::Provenance command_provenance(int argc, char** argv);

}  // namespace scaletune::cli
