#pragma once
// The /system group: the launch's world size, library versions and one row per rank.

#include <optional>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {

/// Writes group /system of `file`, replacing an existing one: attributes world_size (int32),
/// mpi_library, kokkos_version, kokkos_backend, blas, and cuda_runtime, nccl_version, launcher,
/// slurm_job_id, slurm_nodelist and slurm_step_id only when non-empty (strings); dataset ranks
/// (rank_table.hpp). world_size 0 means "no launch" (a file of imported or collective results
/// only): an existing /system is removed and none is written. Throws ResultError when
/// system.ranks does not hold world_size rows or launcher is set to another than mpirun, srun
/// or singleton.
void write_system(hid_t file, const H5Where& root, const SystemInfo& system);

/// Reads /system of `file`; std::nullopt when the file has none (imported data). An attribute
/// written only when non-empty reads back as "" when absent. Throws ResultError naming a missing
/// attribute, a ranks table that does not hold world_size rows or another launcher than mpirun,
/// srun or singleton.
std::optional<SystemInfo> read_system(hid_t file, const H5Where& root);

}  // namespace scaletune::results::detail
