#pragma once
// Root attributes of a result file: schema_version and where the file came from.

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// Writes (replacing) the root attributes of `file`: schema_version (int32) and the string
/// attributes scaletune_version, git_sha, created_utc, command_line, job_toml, build_type.
/// Throws ResultError when provenance.schema_version is not kSchemaVersion.
void write_provenance(hid_t file, const H5Where& root, const Provenance& provenance);

/// Reads the root attributes written by write_provenance; throws ResultError naming the
/// missing one.
Provenance read_provenance(hid_t file, const H5Where& root);

}  // namespace scaletune::results::detail
