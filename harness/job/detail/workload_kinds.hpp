#pragma once
// The workload kinds a job file may name, in one place: each kind's option keys, how to read
// them from [workload] and how to describe them in a plan. A new kind adds one entry here.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// One workload kind: its name, the [workload] keys it takes besides "kind", a reader that
/// fills its options in a WorkloadSpec and a one-line description of those options.
struct WorkloadKind {
  std::string_view name;
  std::span<const std::string_view> option_keys;
  void (*read_options)(const TableReader& workload, WorkloadSpec& spec);
  std::string (*describe_options)(const WorkloadSpec& spec);
};

/// Every kind this version knows.
std::span<const WorkloadKind> workload_kinds();

/// The kind named `name`; throws std::out_of_range when there is none (the parser has checked).
const WorkloadKind& workload_kind(std::string_view name);

/// Reads [workload]: kind (required, one of workload_kinds()) and that kind's options; keys of
/// other kinds are unknown keys. Throws JobError.
WorkloadSpec read_workload(const TableReader& workload);

}  // namespace scaletune::job::detail
