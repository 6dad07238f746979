#pragma once
// The typed values of job-file options (DESIGN.md "Job file", README.md "Job files"). The job
// parser reads each option once into one of these; below it nothing compares option text. Each
// type has one function giving its canonical text, the spelling job files use, which
// configuration ids, result attributes and messages are made of.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace scaletune::job {

// ---- element types -------------------------------------------------------------------------

/// An element type as a job file names it: [sweep] precision of the training kinds and
/// [workload] dtype of kind collectives.
enum class DataType {
  fp32,   ///< IEEE 754 binary32
  fp64,   ///< IEEE 754 binary64
  fp16,   ///< IEEE 754 binary16
  bf16,   ///< bfloat16 (8 exponent bits, 7 mantissa bits)
  int32,  ///< two's complement 32-bit
  int64,  ///< two's complement 64-bit
};

/// "fp32", "fp64", "fp16", "bf16", "int32", "int64" (core::dtype_key spells them the same).
std::string_view data_type_text(DataType type);

/// The [workload] dtype values of kind collectives: every DataType.
inline constexpr std::array<DataType, 6> kCollectiveDtypes = {DataType::fp32,  DataType::fp64,
                                                              DataType::fp16,  DataType::bf16,
                                                              DataType::int32, DataType::int64};

/// The [sweep] precision values of the training kinds (resnet50, dlrm, transformer). On CUDA:
/// fp32, or 16-bit activations and tensor-core GEMMs with fp32 master weights (fp16 with
/// dynamic loss scaling); on the host see precision_supported_on_host (device_selection.hpp).
inline constexpr std::array<DataType, 3> kTrainingPrecisions = {DataType::fp32, DataType::fp16,
                                                                DataType::bf16};

// ---- collectives ---------------------------------------------------------------------------

/// Reduction of the reducing collectives (all_reduce, reduce_scatter): [workload] redop.
enum class ReductionOp {
  sum,  ///< sum over ranks
  avg,  ///< sum over ranks divided by the rank count
};

/// "sum", "avg".
std::string_view reduction_op_text(ReductionOp op);

/// Every ReductionOp.
inline constexpr std::array<ReductionOp, 2> kReductionOps = {ReductionOp::sum, ReductionOp::avg};

/// One op the collective benchmark times ([workload] ops), in nccl-tests naming.
enum class CollectiveOp {
  all_reduce,
  reduce_scatter,
  all_gather,
  all_gatherv,  ///< all_gather through the per-rank-count call, even counts
  alltoall,
  alltoallv,  ///< alltoall through the per-peer-count call, even counts
  broadcast,  ///< from rank 0
};

/// "all_reduce", "reduce_scatter", "all_gather", "all_gatherv", "alltoall", "alltoallv",
/// "broadcast" (job files, /collectives and the printed table use these).
std::string_view collective_op_text(CollectiveOp op);

/// Every CollectiveOp, in enumerator order (the default [workload] ops).
inline constexpr std::array<CollectiveOp, 7> kCollectiveOps = {
    CollectiveOp::all_reduce,  CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
    CollectiveOp::all_gatherv, CollectiveOp::alltoall,       CollectiveOp::alltoallv,
    CollectiveOp::broadcast};

// ---- dlrm ----------------------------------------------------------------------------------

/// Law of the row indices of one embedding table.
enum class IndexLaw { uniform, zipf };

/// [workload] index_distribution: uniform, or Zipf with exponent zipf_alpha (finite, > 0).
struct IndexDistribution {
  IndexLaw law = IndexLaw::uniform;
  double zipf_alpha = 0.0;  ///< exponent s of P(rank k) ~ k^-s; used only for IndexLaw::zipf
  friend bool operator==(const IndexDistribution&, const IndexDistribution&) = default;
};

/// "uniform", or "zipf:ALPHA" with ALPHA in the shortest decimal form that reads back as the
/// same double (std::to_chars): "zipf:1.05", "zipf:2", "zipf:0.001" (for "zipf:1e-3").
std::string index_distribution_text(const IndexDistribution& distribution);

/// Reads "uniform" or "zipf:ALPHA", ALPHA a whole decimal number (std::from_chars), finite and
/// > 0; nullopt for anything else ("zipf:", "zipf:0", "zipf:inf", "zipf: 1", "normal").
std::optional<IndexDistribution> index_distribution_from_text(std::string_view text);

/// Law of the number of lookups per bag (sample): [workload] bag_size.
enum class BagSizeLaw {
  poisson,  ///< 1 + Poisson(pooling - 1): at least one lookup, mean exactly `pooling`
  fixed,    ///< every bag has exactly `pooling` lookups (pooling must be an integer)
};

/// "poisson", "fixed".
std::string_view bag_size_text(BagSizeLaw law);

/// Every BagSizeLaw.
inline constexpr std::array<BagSizeLaw, 2> kBagSizeLaws = {BagSizeLaw::poisson, BagSizeLaw::fixed};

/// Update of the embedding rows: [workload] embedding_optimizer.
enum class EmbeddingOptimizer {
  sgd,              ///< plain SGD on the rows a step touched
  rowwise_adagrad,  ///< Adagrad with one accumulator per row (the mean squared gradient)
};

/// "sgd", "rowwise_adagrad".
std::string_view embedding_optimizer_text(EmbeddingOptimizer optimizer);

/// Every EmbeddingOptimizer.
inline constexpr std::array<EmbeddingOptimizer, 2> kEmbeddingOptimizers = {
    EmbeddingOptimizer::sgd, EmbeddingOptimizer::rowwise_adagrad};

/// How one table of an explicit plan is split ([workload.plans.NAME] split; TorchRec's names).
enum class ShardSplit { table_wise, row_wise, column_wise, data_parallel };

/// "table_wise", "row_wise", "column_wise", "data_parallel".
std::string_view shard_split_text(ShardSplit split);

/// Every ShardSplit.
inline constexpr std::array<ShardSplit, 4> kShardSplits = {
    ShardSplit::table_wise, ShardSplit::row_wise, ShardSplit::column_wise,
    ShardSplit::data_parallel};

/// A [sweep] sharding value of kind dlrm: a built-in scheme or an explicit plan. "table_wise"
/// places table i on rank i mod ranks; the greedy forms place tables in decreasing cost on the
/// least-loaded rank, cost = bytes (rows x dim x 4) for size_greedy, rows x pooling x dim for
/// lookup_greedy, dim x pooling x log10(rows) for size_lookup_greedy (DreamShard's baseline,
/// Zha et al., NeurIPS 2022) and, for norm_lookup_greedy, dim x pooling and rows x dim each
/// divided by its largest value over the tables, summed (the seed paper names this sharder
/// without defining it; this is our reading); random puts each table on a uniformly drawn rank
/// (std::mt19937_64 seeded with 1); row_wise and column_wise split every table over all ranks;
/// data_parallel replicates every table; automatic ("auto") is the plan a performance model
/// predicts fastest among candidates (chosen per configuration before it is built; see
/// ShardingChoice in job.hpp).
enum class ShardingScheme {
  data_parallel,
  table_wise,
  table_wise_size_greedy,         ///< "table_wise:size_greedy"
  table_wise_lookup_greedy,       ///< "table_wise:lookup_greedy"
  table_wise_size_lookup_greedy,  ///< "table_wise:size_lookup_greedy"
  table_wise_norm_lookup_greedy,  ///< "table_wise:norm_lookup_greedy"
  table_wise_random,              ///< "table_wise:random"
  row_wise,
  column_wise,
  explicit_plan,  ///< a plan of [workload.plans], named by DlrmSharding::plan
  automatic,      ///< "auto": chosen by prediction (DlrmSharding::choice)
};

/// The built-in schemes (every ShardingScheme but explicit_plan), in the order README.md lists
/// them.
inline constexpr std::array<ShardingScheme, 9> kShardingSchemes = {
    ShardingScheme::data_parallel,
    ShardingScheme::table_wise,
    ShardingScheme::table_wise_size_greedy,
    ShardingScheme::table_wise_lookup_greedy,
    ShardingScheme::table_wise_size_lookup_greedy,
    ShardingScheme::table_wise_norm_lookup_greedy,
    ShardingScheme::table_wise_random,
    ShardingScheme::row_wise,
    ShardingScheme::column_wise};

/// "data_parallel", "table_wise", "table_wise:size_greedy", "table_wise:lookup_greedy",
/// "table_wise:size_lookup_greedy", "table_wise:norm_lookup_greedy", "table_wise:random",
/// "row_wise", "column_wise"; "explicit" for explicit_plan (whose text is the plan's name);
/// "auto" for automatic.
std::string_view sharding_scheme_text(ShardingScheme scheme);

struct ShardingChoice;

/// One [sweep] sharding value of kind dlrm.
struct DlrmSharding {
  ShardingScheme scheme = ShardingScheme::table_wise;
  /// The [workload.plans] name when scheme is explicit_plan; "" for a built-in scheme.
  std::string plan;
  /// scheme automatic: the plan chosen for the configuration, once chosen (null before, and
  /// for every other scheme). Shared, so copies of a configuration carry the same choice.
  std::shared_ptr<const ShardingChoice> choice = nullptr;
  friend bool operator==(const DlrmSharding&, const DlrmSharding&) = default;
};

/// The value as the job file writes it: the scheme's text, or the plan's name.
std::string sharding_text(const DlrmSharding& sharding);

// ---- transformer ---------------------------------------------------------------------------

/// What each rank keeps whole and what it shards (Rajbhandari et al., "ZeRO: Memory
/// Optimizations Toward Training Trillion Parameter Models", 2020). replicated: everything
/// whole, gradients all-reduced (DDP); zero1: optimizer state sharded; zero2: + gradients
/// (reduce-scatter); zero3: + parameters (all-gathered per layer before use, dropped after).
enum class ZeroStage { replicated, zero1, zero2, zero3 };

/// "replicated", "zero1", "zero2", "zero3".
std::string_view stage_name(ZeroStage stage);

/// A [sweep] state_sharding value of kind transformer: a stage, each zero stage optionally with
/// ":memory_proportional" (shard fractions by each rank's memory instead of even), or "auto"
/// (automatic: the planner picks the first stage, in the order above, that fits every rank,
/// with memory-proportional shards; stage and memory_proportional are then zero3 and true).
struct StateSharding {
  ZeroStage stage = ZeroStage::replicated;
  bool memory_proportional = false;
  bool automatic = false;
  friend bool operator==(const StateSharding&, const StateSharding&) = default;
};

/// The eight values a job file may write, in README.md's order: replicated, zero1, zero2,
/// zero3, zero1:memory_proportional, zero2:memory_proportional, zero3:memory_proportional, auto.
inline constexpr std::array<StateSharding, 8> kStateShardings = {{
    {ZeroStage::replicated, false, false},
    {ZeroStage::zero1, false, false},
    {ZeroStage::zero2, false, false},
    {ZeroStage::zero3, false, false},
    {ZeroStage::zero1, true, false},
    {ZeroStage::zero2, true, false},
    {ZeroStage::zero3, true, false},
    {ZeroStage::zero3, true, true},
}};

/// The value as a job file writes it: "auto" when automatic, else the stage with
/// ":memory_proportional" when set ("zero2:memory_proportional"; replicated has no suffix).
std::string state_sharding_text(const StateSharding& sharding);

/// The kStateShardings entry whose state_sharding_text is `text`; nullopt for anything else.
std::optional<StateSharding> state_sharding_from_text(std::string_view text);

// ---- comm and devices ----------------------------------------------------------------------

/// [comm] backend: the communicator of the configurations.
enum class CommBackend {
  mpi,          ///< MPI on host memory
  nccl,         ///< NCCL on device memory (needs devices of kind cuda)
  auto_select,  ///< "auto": NCCL when the launch runs on CUDA and NCCL is built in, else MPI
};

/// "mpi", "nccl", "auto".
std::string_view comm_backend_text(CommBackend backend);

/// Every CommBackend.
inline constexpr std::array<CommBackend, 3> kCommBackends = {CommBackend::mpi, CommBackend::nccl,
                                                             CommBackend::auto_select};

/// [run] timeline: which timed iterations keep their spans in /configs/<id>/timeline.
enum class TimelineMode {
  none,  ///< "none": no timeline
  one,   ///< "one": the median iteration (by the slowest rank's step time)
  all,   ///< "all": every timed iteration
};

/// "none", "one", "all".
std::string_view timeline_mode_text(TimelineMode mode);

/// Every TimelineMode.
inline constexpr std::array<TimelineMode, 3> kTimelineModes = {
    TimelineMode::none, TimelineMode::one, TimelineMode::all};

/// [devices] kind: where every training workload (and the collective benchmark's buffers) runs.
enum class DeviceKindRequest {
  auto_select,  ///< "auto": cuda when every rank of the launch has a CUDA device, else host
  host,         ///< the CPU cores, one rank per core
  cuda,         ///< each rank's CUDA device; an error where a rank has none
};

/// "auto", "host", "cuda".
std::string_view device_kind_request_text(DeviceKindRequest request);

/// Every DeviceKindRequest.
inline constexpr std::array<DeviceKindRequest, 3> kDeviceKindRequests = {
    DeviceKindRequest::auto_select, DeviceKindRequest::host, DeviceKindRequest::cuda};

}  // namespace scaletune::job
