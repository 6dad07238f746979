#pragma once
// Validated job-file contents (DESIGN.md "Job file") and the configurations a sweep expands to.
// Parsing lives in job_parser.hpp; everything here is plain data, already checked.

#include <cstdint>
#include <string>
#include <vector>

namespace scaletune::job {

/// [job] table. A relative output path is relative to the current directory of the process
/// that runs (or plans) the job, not to the job file's folder.
struct JobInfo {
  /// Required; 1 to 128 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-' (it
  /// becomes a file name and appears in reports).
  std::string name;
  /// Result file path, ending in ".h5", without control characters; default "results/<name>.h5".
  std::string output;
};

/// [workload] keys of kind "resnet50" (ResNet-50 v1.5 proxy).
struct ResNet50Options {
  int image_size = 224;          ///< input height = width, pixels; [32, 8192]
  double width = 1.0;            ///< channel multiplier of every convolution, (0, 4]
  int num_classes = 1000;        ///< classes of the final fully-connected layer, [2, 1e7]
  bool sync_batch_norm = false;  ///< batch-norm statistics over the global batch (all ranks)
};

/// [workload] table: the kind plus the options of that kind.
struct WorkloadSpec {
  std::string kind;  ///< "resnet50" (later: "dlrm", "transformer", "collectives")
  ResNet50Options resnet50;
};

/// [sweep] table: every key is a list; the sweep is their Cartesian product.
struct SweepSpec {
  std::vector<int> ranks;                ///< each in [1, 2^20]
  std::vector<int> global_batch;         ///< samples per step, each in [1, 2^30]
  std::vector<std::string> batch_split;  ///< "even" | "proportional" | "auto" | "w0,w1,..."
  std::vector<std::vector<double>> split_weights;  ///< parallel to batch_split; empty unless a
                                                   ///< list; finite, > 0, finite sum
  std::vector<std::string> precision;              ///< "fp32" (later "fp16", "bf16")
};

/// [run] table.
struct RunSpec {
  int warmup = 3;            ///< untimed iterations before timing, [0, 1e6]
  int iterations = 20;       ///< timed iterations, [1, 1e6]
  double timeout_s = 600.0;  ///< per configuration, s, (0, 1e7]
  std::uint64_t seed = 1;    ///< seed of the synthetic data and weights, [0, 2^63 - 1]
};

/// [comm] table.
struct CommSpec {
  std::string backend = "auto";  ///< "mpi" | "nccl" | "auto"
  double bucket_mib = 25.0;      ///< gradient all-reduce bucket size, MiB (2^20 bytes),
                                 ///< [1/1024, 2^20] (1 KiB to 1 TiB)
};

/// A whole validated job file.
struct JobSpec {
  std::string path;       ///< the file it came from
  std::string toml_text;  ///< the file's text, stored in results as provenance
  JobInfo job;
  WorkloadSpec workload;
  SweepSpec sweep;
  RunSpec run;
  CommSpec comm;
};

/// One point of a sweep: every swept key fixed.
struct Config {
  std::string id;           ///< stable for the same settings, e.g. "resnet50-r2-b64-even-fp32"
  std::string workload;     ///< workload kind
  int ranks = 1;            ///< ranks the configuration runs on (the first `ranks` of the world)
  int global_batch = 1;     ///< samples per step over all ranks
  std::string batch_split;  ///< as written in the job file ("even", "0.5,0.25,0.25", ...)
  std::vector<int> per_rank_batch;  ///< [ranks], samples of each rank; sums to global_batch
  std::string precision;            ///< "fp32"
};

}  // namespace scaletune::job
