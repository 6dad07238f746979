#pragma once
// scaletune plan JOB.toml --profiles FILE.h5,... [--devices TYPE,...]: the heterogeneous planner
// on micro-batch profiles stored by earlier runs, without running the job. As in Cephalo's
// workflow (Guo et al., ICS 2025), a profile measured once per device type serves every cluster
// made of those types.

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/core/hetero_plan.hpp"
#include "harness/job/job.hpp"

namespace scaletune::cli {

/// One device type's stored profile and what it timed.
struct StoredProfile {
  std::string device;             ///< device type (device_type of the rank's device)
  core::RankProfile profile;      ///< the fitted line, spreads and the rank's capacity
  std::string source;             ///< "FILE /configs/<id> rank R"
  job::TransformerOptions model;  ///< the model it timed (dropout, learning_rate unset)
  std::string precision;          ///< the configuration's ("fp32", ...)
  std::string device_kind;        ///< where it ran: "host" or "cuda"
};

/// The stored profiles of some result files.
struct StoredProfiles {
  std::vector<StoredProfile> types;      ///< one per device type
  std::vector<std::string> first_ranks;  ///< the device types of the first configuration's ranks
};

/// The device type of a launch record's device name: a CUDA ordinal is dropped ("cuda:3 NVIDIA
/// L4" gives "NVIDIA L4"); other names stay as they are ("host-core:1").
std::string device_type(const std::string& device);

/// Every rank profile stored in the result files `paths` (/configs/<id>/profile with its launch
/// record), one per device type: of several, the one reaching the largest micro-batch (then the
/// first). Throws results::ResultError for a file that cannot be read, UsageError naming the
/// file when one holds no profile, and naming the configuration and rank when a profile is
/// malformed (sizes not >= 1 and increasing, a time not > 0, a spread not >= 0, a negative
/// capacity).
StoredProfiles read_stored_profiles(const std::vector<std::string>& paths);

/// The profiles of a cluster of `devices` (each a device type, or a part of exactly one stored
/// type's name, case-insensitively), in order; empty `devices`: stored.first_ranks. Throws
/// UsageError naming a device no profile, or more than one, matches, and listing the stored
/// types.
std::vector<StoredProfile> cluster_profiles(const StoredProfiles& stored,
                                            const std::vector<std::string>& devices);

/// Prints the cluster and where each device type's profile came from, then for each distinct
/// (global batch, state sharding, precision) of the transformer job `job` the auto split's plan on
/// `cluster` (one rank per entry), its predicted step time against the even split's on the same
/// profiles, and why. Capacities are the profiles' unless the job's [devices] memory_gib sets them.
/// Throws UsageError when the job is no transformer, its per-rank memory_gib list is shorter than
/// the cluster, or a profile timed another model or precision
/// than the job's (naming its source, the workload key and both values), or the planner refuses
/// the profiles (a line that extrapolates to <= 0 s within the batch).
void print_profiled_plans(const job::JobSpec& job, const std::vector<StoredProfile>& cluster,
                          std::ostream& out);

}  // namespace scaletune::cli
