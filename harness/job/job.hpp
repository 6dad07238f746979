#pragma once
// Validated job-file contents (DESIGN.md "Job file") and the configurations a sweep expands to.
// Parsing lives in job_parser.hpp; everything here is plain data, already checked.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "harness/job/option_values.hpp"

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

/// [workload] keys of kind "collectives": an nccl-tests-style benchmark of each op at sizes
/// min_bytes, min_bytes * step_factor, ... up to max_bytes (sizes in bytes, as nccl-tests' -b,
/// -e, -f; a size is the total buffer of the op as nccl-tests counts it; the list is
/// collective_sizes() of collective_sizes.hpp, at most 1024 sizes). Its sweep is ranks only;
/// each configuration counts one "sample" as one pass over every op at every size, so its
/// global_batch is 1 and its throughput is passes/s.
struct CollectivesOptions {
  /// Ops to time, each once, in the order given (nccl-tests names; the v forms with even
  /// counts). Default: all of them (kCollectiveOps). A non-empty list without repeats.
  std::vector<CollectiveOp> ops{kCollectiveOps.begin(), kCollectiveOps.end()};
  std::int64_t min_bytes = 8;            ///< smallest size, bytes, [1, 2^40]
  std::int64_t max_bytes = 64LL << 20;   ///< largest size, bytes, [min_bytes, 2^40]
  double step_factor = 2.0;              ///< size multiplier, (1, 1024]
  DataType dtype = DataType::fp32;       ///< element type, any of kCollectiveDtypes
  ReductionOp redop = ReductionOp::sum;  ///< reduction of the reducing ops
  bool in_place = true;                  ///< also time the in-place form (nccl-tests prints both)
};

/// One embedding table of a "dlrm" workload.
struct EmbeddingTableSpec {
  std::string name;       ///< unique among the tables; default "t<index>" (t0, t1, ...)
  std::int64_t rows = 1;  ///< cardinality, [1, 2^40]
  int dim = 1;            ///< embedding dimension, [1, 65536]; equal to bottom_mlp's last width
  double pooling = 1.0;   ///< mean lookups per sample (bag size), [1, 65536]
};

/// Where one table lives in an explicit sharding plan ([workload.plans.NAME] in the job file:
/// `TABLE = { split = "...", ranks = [...] }`).
struct TablePlacement {
  std::string table;  ///< a table's name
  /// table_wise (ranks: exactly one), row_wise (rows split evenly over `ranks`, in order),
  /// column_wise (dim split evenly over `ranks`, in order) or data_parallel (ranks empty:
  /// replicated on every rank)
  ShardSplit split = ShardSplit::table_wise;
  std::vector<int> ranks;  ///< distinct, each in [0, 2^20)
};

/// An explicit sharding plan named in [sweep] sharding. It applies to the configurations whose
/// rank count exceeds every rank it names (other ranks then hold no shard of their own).
struct ExplicitPlan {
  std::string name;                    ///< the key under [workload.plans]
  std::vector<TablePlacement> tables;  ///< one per table of the workload, in table order
};

/// One candidate plan that `sharding = "auto"` predicted for a configuration.
struct ShardingCandidate {
  std::string name;          ///< a built-in scheme's text, or "search" (the per-table search)
  ExplicitPlan plan;         ///< its placement of every table
  double embedding_s = 0.0;  ///< estimate of the plan-dependent part of the step, s
  /// The whole step composed along each rank's critical path, s; 0 when not composed
  double step_s = 0.0;
};

/// What `sharding = "auto"` chose for one configuration: the predicted-fastest candidate, every
/// candidate's prediction and why.
struct ShardingChoice {
  ExplicitPlan plan;   ///< the chosen placement (name "auto"), every table placed
  std::string chosen;  ///< the chosen candidate's name
  /// Every candidate predicted, fastest first
  std::vector<ShardingCandidate> candidates;
  /// One line: which model predicted, how the times were composed, the margin to the next
  std::string reason;
  /// Why no plan could be chosen (the model cannot time the configuration); "" when one was
  std::string error;
};

/// [workload] keys of kind "dlrm": a DLRM-style recommendation model (Naumov et al., "Deep
/// Learning Recommendation Model for Personalization and Recommendation Systems", 2019): dense
/// features through a bottom MLP, sum-pooled embedding bags, pairwise dot-product interaction,
/// top MLP, binary cross-entropy.
struct DlrmOptions {
  /// [[workload.tables]] or the rows of the `tables_from` CSV (header name,rows,dim,pooling; the
  /// name column may be empty); 1 to 4096 tables with distinct names.
  std::vector<EmbeddingTableSpec> tables;
  std::string tables_from;  ///< the CSV path as written in the job file; "" for inline tables
  int dense_features = 13;  ///< dense inputs per sample, [1, 65536]
  /// Output width of each bottom-MLP layer (ReLU after each), each in [1, 65536]; the last
  /// equals every table's dim (the interaction takes dot products).
  std::vector<int> bottom_mlp = {512, 256, 128};
  /// Output width of each top-MLP layer (ReLU after all but the last), each in [1, 65536]; the
  /// last is 1 (the logit).
  std::vector<int> top_mlp = {1024, 1024, 512, 256, 1};
  IndexDistribution index_distribution;       ///< default uniform
  BagSizeLaw bag_size = BagSizeLaw::poisson;  ///< fixed: integer poolings
  EmbeddingOptimizer embedding_optimizer = EmbeddingOptimizer::sgd;
  double learning_rate = 0.01;      ///< of the dense SGD and the embeddings, (0, 1e3]
  std::vector<ExplicitPlan> plans;  ///< [workload.plans.NAME], sorted by name
};

/// [workload] keys of kind "transformer": a GPT-style decoder-only transformer proxy (pre-LN
/// blocks of causal multi-head attention and a GELU MLP, token and position embeddings, LM head
/// tied to the token embedding, softmax cross-entropy, Adam). The defaults are GPT-2 small
/// (Radford et al., "Language Models are Unsupervised Multitask Learners", 2019: 12 layers,
/// d_model 768, 12 heads, context 1024, vocabulary 50257, MLP width 4 x d_model).
struct TransformerOptions {
  int layers = 12;              ///< transformer blocks, [1, 4096]
  int hidden = 768;             ///< model width d_model, [1, 2^20]; a multiple of heads
  int heads = 12;               ///< attention heads per block, [1, 4096]; head dim = hidden / heads
  int seq_len = 1024;           ///< tokens per sample (the context length), [1, 2^20]
  int vocab = 50257;            ///< vocabulary size (GPT-2's BPE), [2, 2^26]
  int ffn_mult = 4;             ///< MLP hidden width = ffn_mult x hidden, [1, 64]
  double dropout = 0.1;         ///< dropout probability of both residual branches of every
                                ///< block (after the attention projection and the MLP), [0, 1)
  double learning_rate = 6e-4;  ///< Adam's step size, (0, 1000]
};

/// The [sweep] batch_split words that leave the split to a profile of the ranks at run time
/// (only kinds that profile their ranks take them: "transformer").
inline constexpr std::array<std::string_view, 2> kProfiledSplits = {"proportional", "auto"};

/// [workload] table: the kind plus the options of that kind.
struct WorkloadSpec {
  std::string kind;  ///< "resnet50" | "collectives" | "dlrm" | "transformer"
  ResNet50Options resnet50;
  CollectivesOptions collectives;
  DlrmOptions dlrm;
  TransformerOptions transformer;
};

/// [sweep] table: every key is a list; the sweep is their Cartesian product. A kind that sweeps
/// ranks only ("collectives") leaves every list but ranks empty.
struct SweepSpec {
  std::vector<int> ranks;         ///< each in [1, 2^20]
  std::vector<int> global_batch;  ///< samples per step, each in [1, 2^30]
  /// "even" | "w0,w1,..." (a weight list); kind "transformer" also "proportional" and "auto"
  /// (kProfiledSplits: split by each rank's profiled speed at run time)
  std::vector<std::string> batch_split;
  std::vector<std::vector<double>> split_weights;  ///< parallel to batch_split; empty unless a
                                                   ///< list; finite, > 0, finite sum
  /// kTrainingPrecisions values (default {fp32}); with devices.kind = "host" only those
  /// precision_supported_on_host allows (dlrm: all three, its tables' storage; resnet50 and
  /// transformer: fp32)
  std::vector<DataType> precision;
  /// kind "dlrm" only (required there): built-in schemes and explicit plans
  std::vector<DlrmSharding> sharding;
  /// kind "transformer" only (default {replicated}; empty for other kinds): kStateShardings
  /// values. replicated = DDP all-reduce; zero1 shards the optimizer state; zero2 also the
  /// gradients (reduce-scatter); zero3 also the parameters (all-gather per layer);
  /// memory_proportional = shard fractions by each rank's free memory instead of even;
  /// automatic ("auto") = the planner picks the stage and the fractions.
  std::vector<StateSharding> state_sharding;
};

/// [devices] table: where the workloads run and what the job file says about the devices,
/// overriding what is detected.
struct DevicesSpec {
  /// Where every training workload runs (and the collective benchmark's buffers live). auto:
  /// cuda when every rank of the launch has a CUDA device (decided at run time,
  /// choose_device_kind in device_selection.hpp), else host.
  DeviceKindRequest kind = DeviceKindRequest::auto_select;
  /// Memory per rank, GiB (2^30 bytes): empty (use the device's or the host share), one value
  /// for every rank, or one value per rank of the world (rank i takes memory_gib[i]; a launch
  /// with more ranks than values is an error at run time). Each in (0, 2^20].
  std::vector<double> memory_gib;
};

/// [run] table.
struct RunSpec {
  int warmup = 3;            ///< untimed iterations before timing, [0, 1e6]
  int iterations = 20;       ///< timed iterations, [1, 1e6]
  double timeout_s = 600.0;  ///< per configuration, s, (0, 1e7]
  std::uint64_t seed = 1;    ///< seed of the synthetic data and weights, [0, 2^63 - 1]
  /// timed iterations whose spans /configs/<id>/timeline keeps
  TimelineMode timeline = TimelineMode::one;
};

/// [comm] table.
struct CommSpec {
  /// mpi | nccl | auto. nccl is refused with devices.kind = "host" (parse time) and where a
  /// rank has no CUDA device (run time); auto is NCCL when the launch runs on CUDA
  /// (core::choose_backend).
  CommBackend backend = CommBackend::auto_select;
  double bucket_mib = 25.0;  ///< gradient all-reduce bucket size, MiB (2^20 bytes),
                             ///< [1/1024, 2^20] (1 KiB to 1 TiB)
  /// All-reduce each gradient bucket as soon as backward has filled it, while backward goes
  /// on (as PyTorch DDP); false: all buckets after backward.
  bool overlap = true;
};

/// [slurm] table: defaults of `scaletune plan JOB.toml --slurm DIR`; each option given on the
/// command line overrides its key. Empty or 0: not set (the cluster's default, or derived).
struct SlurmSpec {
  int nodes = 0;                   ///< nodes of the largest allocation, >= 1; 0: as many as needed
  int gpus_per_node = -1;          ///< GPUs requested per node, >= 0; -1: not set (8)
  int tasks_per_node = 0;          ///< ranks per node, >= 1; 0: gpus_per_node (1 when that is 0)
  int cpus_per_task = 0;           ///< CPU cores per rank, >= 1; 0: not set (1)
  std::string partition;           ///< --partition
  std::string account;             ///< --account
  std::string time;                ///< --time, Slurm's forms: "MM", "HH:MM:SS", "D-HH:MM:SS", ...
  std::string launcher;            ///< "srun" | "mpirun"; empty: "srun"
  std::string nccl_socket_ifname;  ///< exported as NCCL_SOCKET_IFNAME when set
  std::string nccl_debug;          ///< exported as NCCL_DEBUG only when set ("INFO", "WARN", ...)
  /// [slurm.env]: variables the script exports (fabric settings: FI_PROVIDER, UCX_TLS, ...), in
  /// name order; names is_environment_name, values is_environment_value
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> srun_args;    ///< extra srun options (is_slurm_option), in order
  std::vector<std::string> sbatch_args;  ///< extra #SBATCH options (is_slurm_option), in order
  std::string gpus_option;  ///< "gpus-per-node" | "gres" (--gres=gpu:G); empty: gpus-per-node
  int cpus_per_node = 0;    ///< CPU cores per node, >= 1; 0: not set
  bool preflight = true;    ///< a line per node (host, GPUs, fabric variables) before the sweep
  /// pyxis/enroot container of every rank (srun --container-image); empty: none
  std::string container_image;
  std::vector<std::string> container_mounts;  ///< SRC:DST[:FLAGS] each (--container-mounts)
  std::string container_workdir;              ///< absolute path in the image; empty: the image's
};

/// [predict] table: the performance model the job's predictions use.
struct PredictSpec {
  /// A model file of `scaletune fit` (".h5"), relative paths resolved against the job file's
  /// folder; "" when not given. Needed by `sharding = "auto"` unless `--model` names one.
  std::string model;
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
  DevicesSpec devices;
  SlurmSpec slurm;
  PredictSpec predict;
};

/// Config::batch_split of a kind that sweeps ranks only: there is no batch to split.
inline constexpr const char* kNoBatchSplit = "none";

/// Config::sharding: none (resnet50, collectives), a [sweep] sharding value (dlrm) or a [sweep]
/// state_sharding value (transformer).
using ConfigSharding = std::variant<std::monostate, DlrmSharding, StateSharding>;

/// One point of a sweep: every swept key fixed. A configuration of a kind that sweeps ranks
/// only ("collectives") has global_batch 1 (one sample: one pass over every op and size),
/// batch_split kNoBatchSplit, per_rank_batch empty and precision its dtype. A configuration
/// whose batch_split is a kProfiledSplits word ("proportional", "auto"; kind transformer) has
/// per_rank_batch empty too: the workload splits the batch at run time from a profile of its
/// ranks (global_batch >= ranks, so every rank can get a sample).
struct Config {
  std::string id;           ///< stable for the same settings, e.g. "resnet50-r2-b64-even-fp32"
  std::string workload;     ///< workload kind
  int ranks = 1;            ///< ranks the configuration runs on (mpi::placement_ranks())
  int global_batch = 1;     ///< samples per step over all ranks
  std::string batch_split;  ///< as written in the job file ("even", "0.5,0.25,0.25", ...)
  /// [ranks], samples of each rank, summing to global_batch; empty when batch_split is
  /// kNoBatchSplit or a kProfiledSplits word (decided at run time)
  std::vector<int> per_rank_batch;
  /// a [sweep] precision value; for collectives its dtype (fp32, bf16, int64, ...)
  DataType precision = DataType::fp32;
  /// kind "dlrm": a DlrmSharding; kind "transformer": a StateSharding; else none
  ConfigSharding sharding;
};

}  // namespace scaletune::job
