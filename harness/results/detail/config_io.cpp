#include "harness/results/detail/config_io.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "harness/results/detail/config_check.hpp"
#include "harness/results/detail/embedding_io.hpp"
#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/launch_io.hpp"
#include "harness/results/detail/profile_io.hpp"
#include "harness/results/detail/text_members.hpp"
#include "harness/results/detail/timeline_table.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::results::detail {
namespace {

const std::array<std::pair<const char*, int ConfigResult::*>, 2> kIntAttrs{{
    {"ranks", &ConfigResult::ranks},
    {"global_batch", &ConfigResult::global_batch},
}};

const std::array<TextMember<ConfigResult>, 4> kTextAttrs{{
    {"workload", &ConfigResult::workload},
    {"batch_split", &ConfigResult::batch_split},
    {"precision", &ConfigResult::precision},
    {"error", &ConfigResult::error},
}};

/// String attributes every configuration a run writes has, and files written before them lack:
/// reading such a file leaves the member's default (device_kind "host").
const std::array<TextMember<ConfigResult>, 1> kDefaultedTextAttrs{{
    {"device_kind", &ConfigResult::device_kind},
}};

const std::array<std::pair<const char*, double ConfigResult::*>, 6> kNumberAttrs{{
    {"params", &ConfigResult::params},
    {"flops_per_sample", &ConfigResult::flops_per_sample},
    {"throughput", &ConfigResult::throughput},
    {"step_time_median", &ConfigResult::step_time_median},
    {"step_time_p95", &ConfigResult::step_time_p95},
    {"harness_overhead_fraction", &ConfigResult::harness_overhead_fraction},
}};

constexpr const char* kPerRankBatch = "per_rank_batch";
constexpr const char* kStatus = "status";
constexpr const char* kStepTime = "step_time";
constexpr const char* kRankPhaseTime = "rank_phase_time";
constexpr const char* kPhaseNames = "phase_names";
constexpr const char* kRankMemoryPeak = "rank_memory_peak";

/// Shapes, dimension names and units of a configuration's four datasets.
struct ConfigDatasets {
  DatasetSpec step_time, rank_phase_time, phase_names, rank_memory_peak;
};

ConfigDatasets dataset_specs(hsize_t ranks, hsize_t iterations, hsize_t phases) {
  return {{{iterations}, "iterations", "s"},
          {{ranks, iterations, phases}, "ranks,iterations,phases", "s"},
          {{phases}, "phases", ""},
          {{ranks}, "ranks", "bytes"}};
}

void write_attributes(hid_t group, const H5Where& at, const ConfigResult& config) {
  for (const auto& [name, member] : kIntAttrs) write_attribute(group, at, name, config.*member);
  write_text_members(group, at, config, kTextAttrs, Presence::required);
  write_text_members(group, at, config, kDefaultedTextAttrs, Presence::required);
  for (const auto& [name, member] : kNumberAttrs) write_attribute(group, at, name, config.*member);
  if (!config.per_rank_batch.empty())
    write_attribute(group, at, kPerRankBatch, std::span<const int>(config.per_rank_batch));
  write_attribute(group, at, kStatus, std::string(to_string(config.status)));
  for (const auto& [name, value] : config.number_attrs) write_attribute(group, at, name, value);
  for (const auto& [name, value] : config.text_attrs) write_attribute(group, at, name, value);
}

void write_datasets(hid_t group, const H5Where& at, const ConfigResult& config) {
  const ConfigDatasets specs = dataset_specs(static_cast<hsize_t>(config.ranks),
                                             config.iterations(), config.phase_names.size());
  write_dataset(group, at, kStepTime, specs.step_time, std::span(config.step_time));
  write_dataset(group, at, kRankPhaseTime, specs.rank_phase_time,
                std::span(config.rank_phase_time));
  write_dataset(group, at, kPhaseNames, specs.phase_names, std::span(config.phase_names));
  write_dataset(group, at, kRankMemoryPeak, specs.rank_memory_peak,
                std::span(config.rank_memory_peak));
}

/// Reads an attribute that is not a fixed one into number_attrs or text_attrs.
void read_extra_attribute(hid_t group, const H5Where& at, const std::string& name,
                          ConfigResult& config) {
  const H5T_class_t type_class = attribute_class(group, at, name);
  if (type_class == H5T_INTEGER || type_class == H5T_FLOAT)
    config.number_attrs[name] = read_double_attribute(group, at, name);
  else if (type_class == H5T_STRING)
    config.text_attrs[name] = read_string_attribute(group, at, name);
  else
    at.attribute(name).fail("expected a number or a string");
}

void read_attributes(hid_t group, const H5Where& at, ConfigResult& config) {
  for (const auto& [name, member] : kIntAttrs) config.*member = read_int_attribute(group, at, name);
  read_text_members(group, at, config, kTextAttrs, Presence::required);
  read_text_members(group, at, config, kDefaultedTextAttrs, Presence::when_set);
  for (const auto& [name, member] : kNumberAttrs)
    config.*member = read_double_attribute(group, at, name);
  if (has_attribute(group, at, kPerRankBatch))
    config.per_rank_batch = read_int_array_attribute(group, at, kPerRankBatch);
  config.status = read_config_status(group, at);
  for (const std::string& name : attribute_names(group, at))
    if (!is_fixed_config_attribute(name)) read_extra_attribute(group, at, name, config);
}

void read_datasets(hid_t group, const H5Where& at, ConfigResult& config) {
  Array<double> step_time = read_double_dataset(group, at, kStepTime);
  Array<std::string> phase_names = read_string_dataset(group, at, kPhaseNames);
  Array<double> phase_time = read_double_dataset(group, at, kRankPhaseTime);
  Array<std::int64_t> memory = read_int64_dataset(group, at, kRankMemoryPeak);
  const ConfigDatasets specs = dataset_specs(static_cast<hsize_t>(config.ranks),
                                             step_time.values.size(), phase_names.values.size());
  expect_shape(step_time.dims, specs.step_time, at, kStepTime);
  expect_shape(phase_names.dims, specs.phase_names, at, kPhaseNames);
  expect_shape(phase_time.dims, specs.rank_phase_time, at, kRankPhaseTime);
  expect_shape(memory.dims, specs.rank_memory_peak, at, kRankMemoryPeak);
  config.step_time = std::move(step_time.values);
  config.phase_names = std::move(phase_names.values);
  config.rank_phase_time = std::move(phase_time.values);
  config.rank_memory_peak = std::move(memory.values);
}

/// Throws ResultError naming the timeline of `config` (at `at`) when a span's rank or iteration is
/// outside the configuration's ranks and iterations.
void check_timeline(const ConfigResult& config, const H5Where& at) {
  for (const trace::TimelineSpan& span : config.timeline)
    if (span.rank < 0 || span.rank >= config.ranks || span.iteration < 0 ||
        static_cast<std::size_t>(span.iteration) >= config.iterations())
      at.child(kTimelineName)
          .fail("span of rank " + std::to_string(span.rank) + ", iteration " +
                std::to_string(span.iteration) + " outside the configuration's " +
                std::to_string(config.ranks) + " ranks and " + std::to_string(config.iterations()) +
                " iterations");
}

}  // namespace

bool is_fixed_config_attribute(std::string_view name) {
  const auto named = [name](const auto& entry) { return name == entry.first; };
  return name == kPerRankBatch || name == kStatus ||
         std::any_of(kIntAttrs.begin(), kIntAttrs.end(), named) ||
         std::any_of(kTextAttrs.begin(), kTextAttrs.end(), named) ||
         std::any_of(kDefaultedTextAttrs.begin(), kDefaultedTextAttrs.end(), named) ||
         std::any_of(kNumberAttrs.begin(), kNumberAttrs.end(), named);
}

Status read_config_status(hid_t group, const H5Where& at) {
  const std::string text = read_string_attribute(group, at, kStatus);
  try {
    return status_from_string(text);
  } catch (const std::invalid_argument& e) {
    at.attribute(kStatus).fail(e.what());
  }
}

void write_config_group(hid_t configs, const H5Where& where, const ConfigResult& config) {
  const Group group = create_group(configs, where, config.id);
  const H5Where at = where.child(config.id);
  write_attributes(group.id(), at, config);
  if (!config.step_time.empty()) write_datasets(group.id(), at, config);
  if (config.embedding) write_embedding_group(group.id(), at, *config.embedding);
  if (config.profile) write_profile_group(group.id(), at, *config.profile);
  if (!config.timeline.empty()) write_timeline(group.id(), at, kTimelineName, config.timeline);
  if (config.launch) write_launch_group(group.id(), at, *config.launch);
}

Group open_config_group(hid_t configs, const H5Where& where, const std::string& id) {
  try {
    return open_group(configs, where, id);
  } catch (const MissingPartError&) {
    throw;
  } catch (const ResultError& e) {
    throw MissingPartError(std::string(e.what()) + " (the configuration's group cannot be opened)");
  }
}

ConfigResult read_config_group(hid_t configs, const H5Where& where, const std::string& id) {
  const Group group = open_config_group(configs, where, id);
  const H5Where at = where.child(id);
  ConfigResult config;
  config.id = id;
  read_attributes(group.id(), at, config);
  check_attributes(config, where);
  if (has_link(group.id(), at, kStepTime)) read_datasets(group.id(), at, config);
  config.embedding = read_embedding_group(group.id(), at, config.ranks);
  config.profile = read_profile_group(group.id(), at, config.ranks);
  config.timeline = read_timeline(group.id(), at, kTimelineName);
  check_timeline(config, at);
  config.launch = read_launch_group(group.id(), at);
  check_launch(config, where);
  return config;
}

}  // namespace scaletune::results::detail
