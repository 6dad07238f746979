#pragma once
// The RankContext a configuration gives one rank of its communicator: the same for the run,
// a described step and the tests.

#include <cstdint>

#include "harness/core/workload.hpp"
#include "harness/job/job.hpp"

namespace scaletune::core {

/// Rank comm.rank() of `config`: its batch and first sample (0 and 0 when the split is left to
/// the workload: batch_split proportional/auto), the global batch, the job's bucket size,
/// overlap, seed and warm-up iterations; comm as the group. No memory budget and no device (the
/// caller's: 0 and null). Throws std::out_of_range when the split has fewer entries than comm's
/// rank needs.
RankContext rank_context(const job::JobSpec& job, const job::Config& config, Communicator& comm);

/// The memory [devices] memory_gib gives world rank `world_rank`, bytes (GiB = 2^30 bytes): its
/// one value, or its entry of the per-rank list; 0 when memory_gib is empty (the device or the
/// host share decides). Throws std::out_of_range when a per-rank list has no entry for it.
std::int64_t configured_memory_bytes(const job::DevicesSpec& devices, int world_rank);

}  // namespace scaletune::core
