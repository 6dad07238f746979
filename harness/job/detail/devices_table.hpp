#pragma once
// Reading the [devices] table of a job file.

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Largest memory_gib value, GiB (2^20 GiB = 1 PiB).
constexpr double kMaxMemoryGib = 1 << 20;

/// Reads [devices] (absent: every field empty): memory_gib, a number or a non-empty list of
/// numbers, each in (0, 2^20] GiB. Unknown keys are errors. Throws JobError at the offending
/// node.
DevicesSpec read_devices(const TableReader& devices);

}  // namespace scaletune::job::detail
