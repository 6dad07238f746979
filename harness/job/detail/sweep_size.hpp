#pragma once
// How large a sweep expands: a job file of a few kilobytes can list a product of millions of
// configurations, or of thousands of 2^20-rank ones, which no run, plan or prediction holds.

#include <cstdint>

#include "harness/job/detail/table_reader.hpp"
#include "harness/job/job.hpp"

namespace scaletune::job::detail {

/// Most configurations one job may expand into.
inline constexpr std::int64_t kMaxConfigurations = 100'000;
/// Most per-rank batches (the sum of the configurations' rank counts) one job may expand into.
inline constexpr std::int64_t kMaxRankBatches = std::int64_t{1} << 24;

/// Configurations and per-rank batches `spec` expands into, counted before anything is
/// expanded: every ranks value x each batch_split entry that applies to it x global_batch x
/// precision x sharding x state_sharding (explicit DLRM plans that leave a rank count out are
/// counted too: this is an upper bound); a kind that sweeps ranks only: one per ranks value and
/// no per-rank batch.
struct SweepSize {
  double configurations = 0;
  double rank_batches = 0;  ///< the sum over configurations of their ranks
};
SweepSize sweep_size(const SweepSpec& spec);

/// Throws JobError at [sweep] ranks (in `sweep`) when `spec` expands into more than
/// kMaxConfigurations configurations or kMaxRankBatches per-rank batches, naming the count and
/// how to fix it (split the sweep over several job files).
void check_sweep_size(const TableReader& sweep, const SweepSpec& spec);

}  // namespace scaletune::job::detail
