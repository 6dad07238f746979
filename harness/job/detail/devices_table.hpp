#pragma once
// Reading the [devices] table of a job file.

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// Largest memory_gib value, GiB (2^20 GiB = 1 PiB).
constexpr double kMaxMemoryGib = 1 << 20;

/// Reads [devices] kind: "auto" (also when absent), "host" or "cuda". Unknown keys of [devices]
/// are errors. Throws JobError at the offending node.
DeviceKindRequest read_device_kind(const TableReader& devices);

/// Reads [devices] (absent: kind auto, memory_gib empty): kind (read_device_kind) and
/// memory_gib, a number or a non-empty list of numbers, each in (0, 2^20] GiB; a list of two or
/// more values holds at least `max_ranks` (the largest sweep.ranks) of them. Unknown keys are
/// errors. Throws JobError at the offending node.
DevicesSpec read_devices(const TableReader& devices, int max_ranks);

}  // namespace scaletune::job::detail
