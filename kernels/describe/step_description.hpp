#pragma once
// A configuration's training step described without running it: each rank's workload is built
// as the run builds it, on a describing device and backend and a detached communicator wrapped
// in a recording one, and one step (after one unrecorded step, as the run warms up) is
// recorded. Nothing is allocated but the workloads' host-side plans and inputs; any rank count
// works.

#include <vector>

#include "harness/core/device.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::kernels::describe {

/// The step of every rank of configuration `config` of `job`, [config.ranks] in rank order,
/// described for devices of `target` (host or cuda) with the communicator backend the job's
/// [comm] backend picks for them and the memory budget of [devices] memory_gib (none without
/// it), built by `workload` (the kind's registry entry). What the ranks exchange in host memory
/// while they plan (each rank's memory budget) comes from describing every rank again until it
/// repeats (core::DetachedCommunicator). Throws std::invalid_argument for a split chosen at run
/// time (batch_split proportional or auto), and what the workload's construction or step
/// throws (std::invalid_argument for settings it cannot take; core::BackendUnavailable for
/// [comm] backend = "nccl" on the host; core::MemoryBudgetExceeded past memory_gib).
std::vector<trace::RankTrace> describe_ranks(const job::JobSpec& job, const job::Config& config,
                                             core::DeviceKind target,
                                             const core::WorkloadEntry& workload);

/// Rank 0 of describe_ranks(job, config, target, workload) for a configuration whose ranks are
/// alike (workload.ranks_alike says so), described alone: what each other rank would send on
/// the host is what rank 0 sends. Throws as describe_ranks.
trace::RankTrace describe_alike_ranks(const job::JobSpec& job, const job::Config& config,
                                      core::DeviceKind target, const core::WorkloadEntry& workload);

/// Rank `rank` (0 <= rank < config.ranks) of describe_ranks(job, config, target, workload).
trace::RankTrace describe_step(const job::JobSpec& job, const job::Config& config, int rank,
                               core::DeviceKind target, const core::WorkloadEntry& workload);

}  // namespace scaletune::kernels::describe
