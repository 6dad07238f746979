#pragma once
// What a ConfigResult must satisfy before it is written, so that every stored configuration
// reads back equal and passes the layout checks of DESIGN.md "Result file"; the reader applies
// the same rules to every configuration it reads.

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// The rules on a configuration's attributes alone. Throws ResultError naming /configs/<id>
/// (below `configs`) and the field unless:
/// - id is a non-empty group name (no '/', not "." or "..");
/// - ranks >= 1 (checked first, so that no shape is computed from a bad rank count) and
///   per_rank_batch holds `ranks` entries summing to global_batch;
/// - device_kind is "host" or "cuda" (is_device_kind_name);
/// - number_attrs and text_attrs keys are non-empty, not a fixed attribute's name
///   (config_io.hpp) and not in both maps.
/// The reader calls it after the attributes and before the datasets of each configuration.
void check_attributes(const ConfigResult& config, const H5Where& configs);

/// Throws ResultError naming /configs/<id> and the launch field unless config.launch, when
/// given, belongs to a configuration that started (not skipped), has started_utc in the form
/// YYYY-MM-DDTHH:MM:SSZ, launcher mpirun, srun or singleton, slurm_step_id only with srun, and
/// one row per configuration rank, each naming a distinct world rank in [0, world_size). The
/// reader calls it after reading the launch group.
void check_launch(const ConfigResult& config, const H5Where& configs);

/// check_attributes(), and: without step_time there is no other per-iteration data
/// (rank_phase_time, phase_names, rank_memory_peak empty); with it, rank_phase_time holds
/// ranks * iterations * phases values and rank_memory_peak holds `ranks`; an embedding, when
/// given, has ranks equal to the configuration's, and lookups and bytes_touched hold tables *
/// ranks values, reuse_histogram tables * ranks * reuse_bins (tables = table_names.size()); a
/// profile, when given, has ranks equal to the configuration's, time_s and spread hold ranks *
/// sizes values and capacity_bytes ranks; check_launch().
/// Throws ResultError naming /configs/<id> and the field (embedding.lookups, ...). The writer
/// calls it before writing a configuration, so a rejected one leaves nothing behind.
void check_storable(const ConfigResult& config, const H5Where& configs);

}  // namespace scaletune::results::detail
