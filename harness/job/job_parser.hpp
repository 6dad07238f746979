#pragma once
// Reading a TOML job file (DESIGN.md "Job file") into a validated JobSpec.

#include <string>

#include "harness/job/job.hpp"

namespace scaletune::job {

/// The text of the job file at `path`, unparsed (for a launch where one rank reads and the
/// others receive it). Throws JobError like parse_job_file for a path that is not a readable
/// regular file of at most 1 MiB.
std::string read_job_file_text(const std::string& path);

/// Reads and validates the job file at `path` (see parse_job_text). Throws JobError naming
/// the file when it does not exist, is a directory, a device, FIFO or socket (refused before
/// reading), is larger than 1 MiB or cannot be read.
JobSpec parse_job_file(const std::string& path);

/// Validates the TOML `text` of a job file; `path` names it in messages and JobSpec::path.
/// Tables [job], [workload], [sweep], [run], [comm], [devices]; unknown tables and keys, wrong
/// types, out-of-range values, empty or repeated sweep values and batches that cannot be split are
/// errors, and so are [sweep] keys the workload kind does not use (collectives sweeps ranks
/// only), backend "nccl" with devices.kind = "host", and a 16-bit [sweep] precision that the
/// kind cannot train in on the host (precision_supported_on_host) with devices.kind = "host".
/// Absent optional keys take the
/// defaults of job.hpp; job.output defaults to "results/<name>.h5". Throws JobError with the line
/// and column of the offending node (0 for a missing key) and the key.
JobSpec parse_job_text(const std::string& text, const std::string& path);

}  // namespace scaletune::job
