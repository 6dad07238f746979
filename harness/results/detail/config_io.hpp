#pragma once
// One /configs/<id> group: the attributes and datasets of a ConfigResult.

#include <string>
#include <string_view>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/detail/h5_handle.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// The group below the root that holds one group per configuration.
inline constexpr const char* kConfigsGroup = "configs";

/// Whether `name` is one of the fixed attributes of a configuration group (workload, ranks,
/// global_batch, per_rank_batch, batch_split, precision, status, error, params,
/// flops_per_sample, throughput, step_time_median, step_time_p95); the other swept keys
/// (number_attrs, text_attrs) must use other names.
bool is_fixed_config_attribute(std::string_view name);

/// Opens configuration group `id` of /configs (`configs`, at `where`); throws MissingPartError
/// naming it when it is absent or cannot be opened (a link to an object never written).
Group open_config_group(hid_t configs, const H5Where& where, const std::string& id);

/// Reads attribute status of configuration group `group` (at `at`); throws MissingPartError
/// when it is missing and ResultError when not one of ok, oom, timeout, error, skipped.
Status read_config_status(hid_t group, const H5Where& at);

/// Writes group <config.id> into group `configs` (at `where`), replacing a group of that id:
/// the fixed attributes, number_attrs as float64 and text_attrs as string attributes, and,
/// when step_time is non-empty, the datasets step_time [iterations] s, rank_phase_time
/// [ranks, iterations, phases] s, phase_names [phases] and rank_memory_peak [ranks] bytes, and,
/// when embedding has a value, the group embedding (embedding_io.hpp).
/// The caller checks the config first (config_check.hpp).
void write_config_group(hid_t configs, const H5Where& where, const ConfigResult& config);

/// Reads group `id` of `configs`. Every fixed attribute is required; attributes with other
/// names become number_attrs (numbers) or text_attrs (strings). The attributes must then pass
/// the writer's rules (check_attributes in config_check.hpp: ranks >= 1, per_rank_batch of
/// `ranks` entries summing to global_batch, ...), before any shape is computed from them. The
/// datasets are read when step_time is present, the embedding group when present (else
/// embedding is empty). Throws MissingPartError naming /configs/<id> and the missing attribute,
/// dataset or group, or the group that cannot be opened (open_config_group); ResultError naming
/// the attribute that breaks a rule and what was expected, or the dataset whose shape
/// does not match [ranks, iterations, phases] (or whose shape or type class does not match the
/// embedding group's, read_embedding_group in embedding_io.hpp).
ConfigResult read_config_group(hid_t configs, const H5Where& where, const std::string& id);

}  // namespace scaletune::results::detail
