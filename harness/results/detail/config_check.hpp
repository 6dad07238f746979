#pragma once
// What a ConfigResult must satisfy before it is written, so that every stored configuration
// reads back equal and passes the layout checks of DESIGN.md "Result file".

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// Throws ResultError naming /configs/<id> and the field unless:
/// - id is a non-empty group name (no '/', not "." or "..");
/// - ranks >= 1 and per_rank_batch holds `ranks` entries summing to global_batch;
/// - without step_time there is no other per-iteration data (rank_phase_time, phase_names,
///   rank_memory_peak empty); with it, rank_phase_time holds ranks * iterations * phases
///   values and rank_memory_peak holds `ranks`;
/// - number_attrs and text_attrs keys are non-empty, not a fixed attribute's name
///   (config_io.hpp) and not in both maps.
void check_storable(const ConfigResult& config, const H5Where& configs);

}  // namespace scaletune::results::detail
