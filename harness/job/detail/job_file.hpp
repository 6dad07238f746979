#pragma once
// Reading the text of a job file from disk, refusing what cannot be one.

#include <cstdint>
#include <string>

namespace scaletune::job::detail {

/// Largest job file read, bytes (1 MiB); real job files are a few hundred bytes.
constexpr std::uintmax_t kMaxJobFileBytes = std::uintmax_t{1} << 20;

/// The whole text of the job file at `path`. Throws JobError (line 0, no key) when the path does
/// not exist, is a directory or another non-regular file (a device such as /dev/zero, a FIFO, a
/// socket: checked before reading, since reading one may never end), is larger than
/// kMaxJobFileBytes, or cannot be read.
std::string read_job_file_text(const std::string& path);

}  // namespace scaletune::job::detail
