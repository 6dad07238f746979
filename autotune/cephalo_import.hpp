#pragma once
// Cephalo's public per-layer profiles and memory model (Guo et al., "Cephalo", ICS 2025;
// github.com/benson-guo/cephalo: data/model_latencies.json, model_memory.json, model_stats.json)
// as a stored micro-batch profile (results::ProfileTable), so that `scaletune plan --profiles`
// plans Cephalo's clusters with Cephalo's own cost and memory model.

#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// What to import from a directory of Cephalo's data files.
struct CephaloImportRequest {
  std::string dir;        ///< holds model_latencies.json, model_memory.json, model_stats.json
  std::string model;      ///< Cephalo's model name ("deepspeedgpt_2.7b")
  int seq_len = 0;        ///< tokens per sample, a key of model_latencies (> 0)
  std::string precision;  ///< "fp16", "fp32" or "bf16" (Cephalo's float16, ...)
  std::string cluster = "paper";  ///< the model_memory.json cluster (split_workload.py's default)
};

/// The imported configuration, and the GPU types left out.
struct CephaloImport {
  results::ConfigResult config;
  /// GPU types with latencies but no capacity in Cephalo's GPU_MEMORY table
  std::vector<std::string> skipped;
  /// GPU types whose latency is in a legacy format (a number or a flat list of numbers, which
  /// split_workload.py misreads or fails on)
  std::vector<std::string> legacy;
};

/// Cephalo's usable memory of GPU type `gpu` (its GPU_MEMORY in GiB, utils/runtime_estimator.py,
/// x MAX_MEMORY_THRESHOLD 0.75), bytes; 0 when the table lacks it.
std::int64_t cephalo_capacity_bytes(const std::string& gpu);

/// One configuration "cephalo-<model>-s<seq>-<precision>" (status skipped: nothing ran here;
/// workload "cephalo:<model>", attributes layers, hidden, seq_len, parameters and source) whose
/// profile has one rank per GPU type that model_latencies.json times for the model, sequence and
/// precision (in the file's order), each named by Cephalo's GPU key ("l4"), with:
///   time_s(m) = layers x (2 f(m) + b(m)) ms, the step time of one micro-batch in Cephalo's cost
///     model (split_workload.py, strategy dp_ga, no communication: forward, the forward again for
///     recomputation, backward); f, b = the profiled ms per layer of m samples where measured,
///     else the fitted line; stored at the measured sizes, then on the line at the next size and
///     at doublings up to 1024 (so interpolation gives the line exactly at every integer m);
///   accumulation_overhead_s = layers x 10 ms (Cephalo's ga_overhead per extra micro-batch);
///   spread 0 (Cephalo stores no repeats); capacity_bytes = cephalo_capacity_bytes;
///   memory model: state = parameters x 16 B (fp32 parameters, gradients and two Adam moments),
///     activation per sample = Cephalo's growth (p[n-1] - p[n-k]) / (k - 1), k = min(5, n), of
///     profiled_compute_memory p (GiB at micro-batches 1..n), replicated = 2 GiB (its
///     comm_mem_overhead) + max over m <= n of p[m-1] - growth m, so the line equals Cephalo's
///     extrapolation beyond n and is never below a profiled point.
/// Throws std::invalid_argument naming the file and the JSON key path when a file cannot be read
/// or parsed, a key is missing, or a value has another type or range than expected (times and
/// sizes > 0, a latency entry [[fs, fi], [bs, bi]] or [[fs, fi], [bs, bi], [fwd...], [bwd...]]
/// with equal-length lists; at least 2 profiled memory sizes; growth >= 0), and when no GPU type
/// with a known capacity has latencies for the request.
CephaloImport read_cephalo_profiles(const CephaloImportRequest& request);

}  // namespace scaletune::autotune
