#include "harness/job/detail/collectives_options.hpp"

#include <array>
#include <cfloat>
#include <stdexcept>
#include <vector>

#include "harness/job/collective_sizes.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 7> kKeys = {"ops",   "min_bytes", "max_bytes", "step_factor",
                                                   "dtype", "redop",     "in_place"};
// The smallest double above 1, so number_in's closed range [kMinStepFactor, 1024] is (1, 1024].
constexpr double kMinStepFactor = 1.0 + DBL_EPSILON;
// With the default step_factor 2 at most 41 sizes fit in [1, 2^40]: only a written
// step_factor can give too many.
static_assert(kMaxCollectiveSizes > 41);

std::string size_text(std::string_view key, std::int64_t bytes) {
  return std::string(key) + " = " + std::to_string(bytes);
}

void check_size_range(const TableReader& workload, const CollectivesOptions& options) {
  if (options.max_bytes >= options.min_bytes) return;
  if (const toml::node* max = workload.find("max_bytes"))
    workload.fail(*max, "max_bytes",
                  size_text("max_bytes", options.max_bytes) + " is below " +
                      size_text("min_bytes", options.min_bytes) +
                      "; max_bytes must be >= min_bytes");
  workload.fail(*workload.find("min_bytes"), "min_bytes",
                size_text("min_bytes", options.min_bytes) + " is above the default " +
                    size_text("max_bytes", options.max_bytes) +
                    "; set max_bytes >= min_bytes or lower min_bytes");
}

void check_size_count(const TableReader& workload, const CollectivesOptions& options) {
  try {
    collective_sizes(options);
  } catch (const std::length_error&) {
    workload.fail(*workload.find("step_factor"), "step_factor",
                  "step_factor = " + format_number(options.step_factor) + " gives more than " +
                      std::to_string(kMaxCollectiveSizes) + " sizes per op from " +
                      size_text("min_bytes", options.min_bytes) + " to " +
                      size_text("max_bytes", options.max_bytes) +
                      "; use a larger step_factor (2 doubles each size) or a narrower range");
  }
}

}  // namespace

std::span<const std::string_view> collectives_option_keys() {
  return kKeys;
}

void read_collectives_options(const TableReader& workload, WorkloadSpec& spec) {
  CollectivesOptions& options = spec.collectives;
  options.ops =
      workload.choice_list("ops", kCollectiveOps, collective_op_text).value_or(options.ops);
  options.min_bytes =
      workload.integer("min_bytes", 1, kMaxCollectiveBytes).value_or(options.min_bytes);
  options.max_bytes =
      workload.integer("max_bytes", 1, kMaxCollectiveBytes).value_or(options.max_bytes);
  check_size_range(workload, options);
  options.step_factor =
      workload
          .number_in("step_factor", kMinStepFactor, kMaxStepFactor,
                     "> 1 and <= 1024 (each size is the previous one times step_factor), e.g. 2")
          .value_or(options.step_factor);
  options.dtype =
      workload.choice("dtype", kCollectiveDtypes, data_type_text).value_or(options.dtype);
  options.redop =
      workload.choice("redop", kReductionOps, reduction_op_text).value_or(options.redop);
  options.in_place = workload.boolean("in_place").value_or(options.in_place);
  check_size_count(workload, options);
}

std::string describe_collectives_options(const WorkloadSpec& spec) {
  const CollectivesOptions& options = spec.collectives;
  std::vector<std::string_view> ops;
  for (const CollectiveOp op : options.ops) ops.push_back(collective_op_text(op));
  return "ops=" + join(ops, ",") + " min_bytes=" + std::to_string(options.min_bytes) +
         " max_bytes=" + std::to_string(options.max_bytes) +
         " step_factor=" + format_number(options.step_factor) +
         " sizes_per_op=" + std::to_string(collective_sizes(options).size()) +
         " dtype=" + std::string(data_type_text(options.dtype)) +
         " redop=" + std::string(reduction_op_text(options.redop)) +
         " in_place=" + (options.in_place ? "true" : "false");
}

}  // namespace scaletune::job::detail
