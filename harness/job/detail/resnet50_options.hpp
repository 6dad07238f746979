#pragma once
// [workload] options of kind "resnet50" (job.hpp ResNet50Options).

#include <span>
#include <string>
#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// image_size, width, num_classes, sync_batch_norm.
std::span<const std::string_view> resnet50_option_keys();

/// Fills spec.resnet50: image_size (integer in [32, 8192]), width (number in (0, 4]),
/// num_classes (integer in [2, 10000000]), sync_batch_norm (boolean); absent keys keep their
/// defaults. Throws JobError.
void read_resnet50_options(const TableReader& workload, WorkloadSpec& spec);

/// "image_size=224 width=1 num_classes=1000 sync_batch_norm=false".
std::string describe_resnet50_options(const WorkloadSpec& spec);

}  // namespace scaletune::job::detail
