#pragma once
// scaletune plan JOB.toml --profiles FILE.h5,... [--devices TYPE,...]: the heterogeneous planner
// on micro-batch profiles stored by earlier runs, without running the job. As in Cephalo's
// workflow (Guo et al., ICS 2025), a profile measured once per device type serves every cluster
// made of those types.

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/core/hetero_plan.hpp"
#include "harness/job/job.hpp"

namespace scaletune::cli {

/// One stored rank profile and what it timed.
struct StoredProfile {
  std::string device;         ///< device type (device_type of the rank's device)
  core::RankProfile profile;  ///< the fitted line, spreads and the rank's capacity
  std::string source;         ///< "FILE /configs/<id> rank R"
  /// The model keys of its configuration that are stored (layers, hidden, heads, seq_len,
  /// vocab, ffn_mult; a missing one is absent)
  std::map<std::string, double> model;
  std::string precision;    ///< the configuration's ("fp32", ...)
  std::string device_kind;  ///< where it ran: "host" or "cuda"
  /// The memory model stored with it (imported profiles); absent: the job's model gives it
  std::optional<core::MemoryModel> memory_model;
};

/// The stored profiles of some result files.
struct StoredProfiles {
  /// One per (device type, model, precision): of several, the one reaching the largest
  /// micro-batch (then the first read)
  std::vector<StoredProfile> profiles;
  std::vector<std::string> first_ranks;  ///< the device types of the first configuration's ranks
};

/// The device type of a launch record's device name: a CUDA ordinal is dropped ("cuda:3 NVIDIA
/// L4" gives "NVIDIA L4"); other names stay as they are ("host-core:1").
std::string device_type(const std::string& device);

/// Every rank profile stored in the result files `paths` (/configs/<id>/profile with its device
/// dataset or its launch record). Throws results::ResultError for a file that cannot be read,
/// UsageError naming the file when one holds no profile, and naming the configuration and rank when
/// a profile is malformed (1 to 64 sizes, each in [1, 2^20] and increasing; times finite and >= 1
/// ns; spreads finite and >= 0; capacity >= 0; accumulation overheads and memory-model terms finite
/// and >= 0).
StoredProfiles read_stored_profiles(const std::vector<std::string>& paths);

/// The device types of a cluster of `devices` (each a device type, case-insensitively, or a part
/// of exactly one type's name), in order; empty `devices`: stored.first_ranks. Throws UsageError
/// naming a device no profile, or more than one, matches, and listing the stored types.
std::vector<std::string> cluster_devices(const StoredProfiles& stored,
                                         const std::vector<std::string>& devices);

/// Writes to `out` the cluster `devices` (one rank per entry) and, for each distinct (global
/// batch, state sharding, precision) of the transformer job `job`: where each device's profile
/// came from (the one that timed the job's model in that precision), the auto split's plan on
/// them, its predicted step time against the even split's on the same profiles, and why.
/// Capacities are the profiles' unless the job's [devices] memory_gib sets them. A global batch
/// smaller than the cluster, above 16384 samples, or with ranks x batch^2 above 4 x 16384^2 (the
/// planner's time grows with it) is not planned, with a line saying why. Nothing is written when it
/// throws: UsageError when the job is no transformer, its per-rank memory_gib list is shorter than
/// the cluster, a device has no profile of the job's model in a swept precision (naming a profile
/// of it, the workload key and both values; a model key the profile does not record is not
/// compared, and the output says so), the cluster mixes host and CUDA profiles or profiles with and
/// without a stored memory model (or different ones), a stored memory model is planned with another
/// sharding than zero3 (it describes fully sharded state), or the planner refuses the profiles (a
/// line that extrapolates to <= 0 s within the batch; naming the profiles).
void print_profiled_plans(const job::JobSpec& job, const StoredProfiles& stored,
                          const std::vector<std::string>& devices, std::ostream& out);

}  // namespace scaletune::cli
