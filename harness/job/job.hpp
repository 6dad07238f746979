#pragma once
// Validated job-file contents (DESIGN.md "Job file") and the configurations a sweep expands to.
// Parsing lives in job_parser.hpp; everything here is plain data, already checked.

#include <cstdint>
#include <string>
#include <vector>

namespace scaletune::job {

/// [job] table.
struct JobInfo {
  std::string name;    ///< required
  std::string output;  ///< result file path; default "results/<name>.h5"
};

/// [workload] keys of kind "resnet50" (ResNet-50 v1.5 proxy).
struct ResNet50Options {
  int image_size = 224;          ///< input height = width, pixels; >= 32
  double width = 1.0;            ///< channel multiplier of every convolution, (0, 4]
  int num_classes = 1000;        ///< classes of the final fully-connected layer, >= 2
  bool sync_batch_norm = false;  ///< batch-norm statistics over the global batch (all ranks)
};

/// [workload] table: the kind plus the options of that kind.
struct WorkloadSpec {
  std::string kind;  ///< "resnet50" (later: "dlrm", "transformer", "collectives")
  ResNet50Options resnet50;
};

/// [sweep] table: every key is a list; the sweep is their Cartesian product.
struct SweepSpec {
  std::vector<int> ranks;                ///< each >= 1
  std::vector<int> global_batch;         ///< samples per step, each >= 1
  std::vector<std::string> batch_split;  ///< "even" | "proportional" | "auto" | "w0,w1,..."
  std::vector<std::vector<double>> split_weights;  ///< parallel to batch_split; empty unless a list
  std::vector<std::string> precision;              ///< "fp32" (later "fp16", "bf16")
};

/// [run] table.
struct RunSpec {
  int warmup = 3;            ///< untimed iterations before timing, >= 0
  int iterations = 20;       ///< timed iterations, >= 1
  double timeout_s = 600.0;  ///< per configuration, s, > 0
  std::uint64_t seed = 1;    ///< seed of the synthetic data and weights
};

/// [comm] table.
struct CommSpec {
  std::string backend = "auto";  ///< "mpi" | "nccl" | "auto"
  double bucket_mib = 25.0;      ///< gradient all-reduce bucket size, MiB (2^20 bytes), > 0
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
