#pragma once
// In-memory form of a result file (DESIGN.md "Result file", schema_version 1).
// The writer and reader (result_file.hpp) map these one-to-one onto HDF5 groups,
// attributes and datasets; results/README.md documents the on-disk names and units.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/trace/timeline_span.hpp"

namespace scaletune::results {

inline constexpr int kSchemaVersion = 1;

/// Outcome of one configuration. "skipped": it needs more ranks than the launch had;
/// "cancelled": a signal (SIGTERM, SIGINT) stopped the sweep while it ran.
enum class Status { ok, oom, timeout, error, skipped, cancelled };

/// "ok", "oom", "timeout", "error", "skipped", "cancelled".
const char* to_string(Status s);
/// Inverse of to_string; throws std::invalid_argument naming the text for anything else.
Status status_from_string(const std::string& text);

/// Where a launch or a configuration ran (/system and /configs/<id> attribute device_kind):
/// "host" (CPU cores) or "cuda" (CUDA devices); files written before it was recorded read as
/// "host".
inline constexpr const char* kHostDeviceKind = "host";

/// True for the device kinds a result file names: "host", "cuda".
bool is_device_kind_name(std::string_view name);

/// Root attributes: where a file came from.
struct Provenance {
  int schema_version = kSchemaVersion;
  std::string scaletune_version;
  std::string git_sha;
  std::string created_utc;   ///< ISO 8601, e.g. "2026-11-30T03:00:00Z"
  std::string command_line;  ///< the launch's argv joined by spaces
  std::string job_toml;      ///< the job file's text (empty for imported files)
  std::string build_type;    ///< CMake build type of the binary that wrote the file
};

/// One row of /system/ranks.
struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string device;             ///< "host-core:3", "cuda:0 NVIDIA H200", ...
  std::int64_t memory_bytes = 0;  ///< memory of that device, bytes
};

/// /system group.
struct SystemInfo {
  int world_size = 0;
  std::string mpi_library;
  std::string kokkos_version;
  std::string kokkos_backend;
  std::string cuda_runtime;    ///< empty when no CUDA runtime was used
  std::string nccl_version;    ///< empty when NCCL was not used
  std::string blas;            ///< BLAS library (and OpenBLAS core) the host GEMMs used
  std::string launcher;        ///< "mpirun", "srun" or "singleton"; "" in older files
  std::string slurm_job_id;    ///< Slurm job id ("4242"); empty outside a Slurm job
  std::string slurm_nodelist;  ///< Slurm hostlist of the job's nodes ("node[01-04]") or ""
  std::string slurm_step_id;   ///< srun's step id ("0"); empty unless launcher is srun
  std::string device_kind = kHostDeviceKind;  ///< where the launch ran: "host" or "cuda"
  std::vector<RankInfo> ranks;                ///< [world_size]
};

/// The launch that ran one configuration: stored as the /configs/<id>/launch group
/// (results/README.md). /system describes only a file's latest launch (--resume replaces it),
/// so a sweep split over several launches (Slurm jobs) keeps here, per configuration, which
/// launch ran it and on which world ranks, hosts and devices.
struct LaunchRecord {
  int world_size = 0;         ///< ranks of that launch, >= the configuration's ranks
  std::string started_utc;    ///< when that launch began (its created_utc), ISO 8601
  std::string launcher;       ///< as SystemInfo::launcher
  std::string slurm_job_id;   ///< as SystemInfo::slurm_job_id; empty outside a Slurm job
  std::string slurm_step_id;  ///< as SystemInfo::slurm_step_id; empty unless launched by srun
  /// [configuration ranks]: row i describes configuration rank i, and its `rank` is that rank's
  /// rank in MPI_COMM_WORLD of the launch (distinct, in [0, world_size)).
  std::vector<RankInfo> ranks;
};

/// Embedding-table statistics of one configuration of the DLRM workload, per table and rank,
/// for one step's batch (the same batch every step). Stored as the /configs/<id>/embedding
/// group (results/README.md).
struct EmbeddingStats {
  std::vector<std::string> table_names;  ///< [tables]
  int ranks = 0;                         ///< ranks of the configuration
  /// [tables * ranks], row-major: lookups (index positions) rank r served for table t per step
  std::vector<std::int64_t> lookups;
  /// [tables * ranks]: bytes of embedding rows rank r read for table t per step (lookups x the
  /// shard's columns x bytes per value)
  std::vector<std::int64_t> bytes_touched;
  /// [tables * ranks * reuse_bins]: share of the unique rows rank r read for table t whose access
  /// count falls in bin b: (0,1], (1,2], (2,4], ..., (2^14,2^15], (2^15,inf); each row of
  /// reuse_bins sums to 1, or is all 0 when the rank read nothing of that table
  std::vector<double> reuse_histogram;
  static constexpr std::size_t reuse_bins = 17;
};

/// The micro-batch profile a configuration's batch split was planned from (transformer,
/// batch_split proportional or auto): every rank's time of one forward + backward micro-batch at
/// each profiled size (the least-squares line t = a + b m the planner used, at those sizes), the
/// spread of the timings and the memory the rank could use. Ranks are the configuration's (their
/// devices: its launch record). Stored as the /configs/<id>/profile group (results/README.md).
struct ProfileTable {
  std::vector<std::int64_t> micro_batches;  ///< [sizes] samples, strictly increasing, >= 1
  int ranks = 0;                            ///< ranks of the configuration
  std::vector<double> time_s;               ///< [ranks * sizes], row-major, s (> 0)
  /// [ranks * sizes]: (p75 - p25) / median of the size's timed calls (>= 0)
  std::vector<double> spread;
  std::vector<std::int64_t> capacity_bytes;  ///< [ranks] bytes the rank could use; 0: no limit
  /// [ranks] the device type each row timed; empty when the launch record names the devices
  /// (imported profiles have no launch)
  std::vector<std::string> devices;
  /// [ranks] s each micro-batch after the first adds to a step (core::RankProfile); empty: 0
  std::vector<double> accumulation_overhead_s;
  /// The memory model of the profile, bytes: for an imported one, the one measured with it (the
  /// planner then plans with it); for a run, the one its split was fitted against for its own
  /// stage (plan --profiles computes a run's memory from the job's model for the stage it
  /// plans); absent: not recorded
  struct MemoryTerms {
    double state_bytes = 0;                  ///< the whole training state, sharded under zero3
    double replicated_bytes = 0;             ///< every rank's besides state and activations
    double activation_bytes_per_sample = 0;  ///< per sample of a micro-batch
  };
  std::optional<MemoryTerms> memory_model;
};

/// One /configs/<id> group.
struct ConfigResult {
  std::string id;
  std::string workload;
  int ranks = 0;
  int global_batch = 0;
  std::vector<int> per_rank_batch;  ///< [ranks], samples; empty for the collective benchmark
  std::string batch_split;
  std::string precision;
  std::string device_kind = kHostDeviceKind;  ///< where it ran: "host" or "cuda"
  Status status = Status::ok;
  std::string error;            ///< empty when ok
  double params = 0;            ///< trainable parameters of the model
  double flops_per_sample = 0;  ///< training FLOP per sample (forward + backward)
  double throughput = 0;        ///< samples/s = global_batch / step_time_median
  double step_time_median = 0;  ///< s
  double step_time_p95 = 0;     ///< s
  /// Share of the wall time from the first timed iteration until the measurements are gathered
  /// on rank 0 that was spent outside the iterations (timer bookkeeping, the per-iteration
  /// status agreement, gathering), measured on rank 0; fraction.
  double harness_overhead_fraction = 0;
  std::vector<double> step_time;  ///< [iterations], s: the slowest rank's wall time per iteration
  std::vector<std::string> phase_names;           ///< [phases]
  std::vector<double> rank_phase_time;            ///< [ranks * iterations * phases], row-major, s
  std::vector<std::int64_t> rank_memory_peak;     ///< [ranks], bytes
  std::map<std::string, double> number_attrs;     ///< other keys (image_size, width, ...)
  std::map<std::string, std::string> text_attrs;  ///< other keys (sharding, plan, ...)
  std::optional<EmbeddingStats> embedding;        ///< DLRM configurations that ran; else empty
  std::optional<ProfileTable> profile;  ///< configurations planned from a profile; else empty
  /// Spans of timed iterations (run.timeline: the median one or all; every rank, by rank);
  /// empty with run.timeline = "none", for imports and for files written before timelines
  std::vector<trace::TimelineSpan> timeline;
  /// Where it ran; empty for configurations that did not start (skipped), imported results and
  /// files written before launch records.
  std::optional<LaunchRecord> launch;

  /// Iterations stored in step_time.
  std::size_t iterations() const { return step_time.size(); }
  /// Phase time of rank r, iteration i, phase p, s.
  double phase_time(std::size_t r, std::size_t i, std::size_t p) const {
    return rank_phase_time[(r * iterations() + i) * phase_names.size() + p];
  }
};

/// One row of /collectives: a collective benchmark result (scaletune or imported, e.g. from
/// nccl-tests). GB = 1e9 bytes. Bandwidths follow nccl-tests doc/PERFORMANCE.md:
/// algbw_gbps = bytes / time_us / 1e3, busbw_gbps = algbw_gbps * bus factor of op on `ranks`
/// (all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; others 1).
struct CollectiveResult {
  std::string op;           ///< "all_reduce", "all_gather", "broadcast", ...
  std::string dtype;        ///< element type: "float32", "bfloat16", ...
  std::int64_t bytes = 0;   ///< message size, bytes (nccl-tests "size")
  int ranks = 0;            ///< ranks taking part
  double time_us = 0;       ///< time of one collective, microseconds
  double algbw_gbps = 0;    ///< algorithm bandwidth, GB/s
  double busbw_gbps = 0;    ///< bus bandwidth, GB/s
  std::int64_t wrong = -1;  ///< count of wrong elements after verification; -1 unknown
  std::string source;       ///< where the row came from: "scaletune", "nccl-tests", ...
  bool in_place = false;    ///< timed in place (send buffer = receive buffer, NCCL's convention)
  int nodes = 0;            ///< nodes (hosts) the ranks ran on; 0 unknown
};

/// One row of /ops: an op microbenchmark of `scaletune profile` (its shape as kernels/describe
/// records it), on one rank's device.
struct OpTiming {
  std::string op;      ///< op kind: "gemm", "conv2d_forward", ...
  std::string dtype;   ///< element type of its activations: "fp32", "bf16", ...
  std::string device;  ///< the rank's device as /system/ranks names it: "host-core:3", ...
  int rank = 0;        ///< the launch's world rank that timed it
  /// The op's shape fields, "name=value" separated by spaces in the op's order
  /// ("m=512 n=256 k=128 batch=1 trans_a=0 trans_b=1")
  std::string shape;
  double time_s = 0;      ///< median time of one call, s (device fenced around the clock)
  double time_iqr_s = 0;  ///< interquartile range of the calls' times, s
  int repeats = 0;        ///< timed calls
  double flops = 0;       ///< FLOPs of one call (2 per multiply-add)
  double bytes = 0;       ///< compulsory bytes of one call
  /// 17-bin reuse histogram of an embedding lookup's indices (EmbeddingStats' bins); zeros for
  /// other ops
  std::array<double, 17> reuse{};
};

/// A whole result file as read back.
/// A configuration the reader skipped: its group cannot be opened or lacks a part the layout
/// requires (MissingPartError), as a write interrupted by an older version left it.
struct IncompleteConfig {
  std::string id;      ///< the name under /configs
  std::string reason;  ///< the reader's error: the file, the object and what is missing
};

struct ResultSet {
  std::string path;
  Provenance provenance;
  std::optional<SystemInfo> system;
  std::vector<ConfigResult> configs;  ///< in file order (sorted by id)
  std::vector<CollectiveResult>
      collectives;                           ///< /collectives rows in file order; empty when absent
  std::vector<OpTiming> ops;                 ///< /ops rows in file order; empty when absent
  std::vector<IncompleteConfig> incomplete;  ///< configurations skipped, in id order
};

}  // namespace scaletune::results
