#include "harness/job/detail/workload_kinds.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "harness/job/detail/batch_sweep.hpp"
#include "harness/job/detail/collectives_options.hpp"
#include "harness/job/detail/collectives_sweep.hpp"
#include "harness/job/detail/dlrm_options.hpp"
#include "harness/job/detail/dlrm_sweep.hpp"
#include "harness/job/detail/edit_distance.hpp"
#include "harness/job/detail/resnet50_options.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"
#include "harness/job/detail/transformer_options.hpp"
#include "harness/job/detail/transformer_sweep.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<DataType, 1> kFp32 = {DataType::fp32};

const std::array<WorkloadKind, 4> kKinds = {
    WorkloadKind{.name = "resnet50",
                 .option_keys = resnet50_option_keys(),
                 .read_options = read_resnet50_options,
                 .describe_options = describe_resnet50_options,
                 .sweeps_batch = true,
                 .sweeps_sharding = false,
                 .sweeps_state_sharding = false,
                 .profiles_ranks = false,
                 .host_precisions = kFp32,
                 .expand = expand_batch_sweep},
    WorkloadKind{.name = "collectives",
                 .option_keys = collectives_option_keys(),
                 .read_options = read_collectives_options,
                 .describe_options = describe_collectives_options,
                 .sweeps_batch = false,
                 .sweeps_sharding = false,
                 .sweeps_state_sharding = false,
                 .profiles_ranks = false,
                 .host_precisions = {},
                 .expand = expand_collectives_sweep},
    WorkloadKind{.name = "dlrm",
                 .option_keys = dlrm_option_keys(),
                 .read_options = read_dlrm_options,
                 .describe_options = describe_dlrm_options,
                 .sweeps_batch = true,
                 .sweeps_sharding = true,
                 .sweeps_state_sharding = false,
                 .profiles_ranks = false,
                 .host_precisions = kTrainingPrecisions,
                 .expand = expand_dlrm_sweep},
    WorkloadKind{.name = "transformer",
                 .option_keys = transformer_option_keys(),
                 .read_options = read_transformer_options,
                 .describe_options = describe_transformer_options,
                 .sweeps_batch = true,
                 .sweeps_sharding = false,
                 .sweeps_state_sharding = true,
                 .profiles_ranks = true,
                 .host_precisions = kFp32,
                 .expand = expand_transformer_sweep},
};

std::vector<std::string_view> kind_names() {
  std::vector<std::string_view> names;
  for (const WorkloadKind& kind : kKinds) names.push_back(kind.name);
  return names;
}

}  // namespace

std::span<const WorkloadKind> workload_kinds() {
  return kKinds;
}

const WorkloadKind& workload_kind(std::string_view name) {
  const auto* found = std::ranges::find(kKinds, name, &WorkloadKind::name);
  if (found == kKinds.end())
    throw std::out_of_range("unknown workload kind '" + std::string(name) + "'");
  return *found;
}

WorkloadSpec read_workload(const TableReader& workload) {
  const std::vector<std::string_view> names = kind_names();
  const std::string known = join(names, ", ");
  workload.require("kind", "one of " + known);
  WorkloadSpec spec;
  spec.kind = workload.string("kind").value();
  if (std::ranges::find(names, spec.kind) == names.end()) {
    const std::string hint = did_you_mean(spec.kind, names);
    workload.fail(*workload.find("kind"), "kind",
                  "unknown workload kind '" + spec.kind + "'" +
                      (hint.empty() ? "; known kinds: " + known : hint));
  }
  const WorkloadKind& kind = workload_kind(spec.kind);
  std::vector<std::string_view> keys{"kind"};
  keys.insert(keys.end(), kind.option_keys.begin(), kind.option_keys.end());
  workload.reject_unknown_keys(keys);
  kind.read_options(workload, spec);
  return spec;
}

}  // namespace scaletune::job::detail
