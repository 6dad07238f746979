#include "harness/job/option_values.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <system_error>

namespace scaletune::job {
namespace {

/// The word of enumerator `value` in `words`, which lists them in enumerator order.
template <class Enum, std::size_t N>
std::string_view word_of(Enum value, const std::array<std::string_view, N>& words) {
  return words.at(static_cast<std::size_t>(value));
}

constexpr std::array<std::string_view, 6> kDataTypeWords = {"fp32", "fp64",  "fp16",
                                                            "bf16", "int32", "int64"};
constexpr std::array<std::string_view, 2> kReductionWords = {"sum", "avg"};
constexpr std::array<std::string_view, 7> kCollectiveWords = {
    "all_reduce", "reduce_scatter", "all_gather", "all_gatherv",
    "alltoall",   "alltoallv",      "broadcast"};
constexpr std::array<std::string_view, 2> kBagSizeWords = {"poisson", "fixed"};
constexpr std::array<std::string_view, 2> kOptimizerWords = {"sgd", "rowwise_adagrad"};
constexpr std::array<std::string_view, 4> kSplitWords = {"table_wise", "row_wise", "column_wise",
                                                         "data_parallel"};
constexpr std::array<std::string_view, 11> kSchemeWords = {"data_parallel",
                                                           "table_wise",
                                                           "table_wise:size_greedy",
                                                           "table_wise:lookup_greedy",
                                                           "table_wise:size_lookup_greedy",
                                                           "table_wise:norm_lookup_greedy",
                                                           "table_wise:random",
                                                           "row_wise",
                                                           "column_wise",
                                                           "explicit",
                                                           "auto"};
constexpr std::array<std::string_view, 4> kStageWords = {"replicated", "zero1", "zero2", "zero3"};
constexpr std::array<std::string_view, 3> kBackendWords = {"mpi", "nccl", "auto"};
constexpr std::array<std::string_view, 3> kTimelineWords = {"none", "one", "all"};
constexpr std::array<std::string_view, 3> kDeviceKindWords = {"auto", "host", "cuda"};

constexpr std::string_view kZipfPrefix = "zipf:";
constexpr std::string_view kProportionalSuffix = ":memory_proportional";

}  // namespace

std::string_view data_type_text(DataType type) {
  return word_of(type, kDataTypeWords);
}

std::string_view reduction_op_text(ReductionOp op) {
  return word_of(op, kReductionWords);
}

std::string_view collective_op_text(CollectiveOp op) {
  return word_of(op, kCollectiveWords);
}

std::string index_distribution_text(const IndexDistribution& distribution) {
  if (distribution.law == IndexLaw::uniform) return "uniform";
  // The shortest round-trip form of a double takes at most 24 characters, so this never fails.
  std::array<char, 32> digits{};
  char* end =
      std::to_chars(digits.data(), digits.data() + digits.size(), distribution.zipf_alpha).ptr;
  return std::string(kZipfPrefix) + std::string(digits.data(), end);
}

std::optional<IndexDistribution> index_distribution_from_text(std::string_view text) {
  if (text == "uniform") return IndexDistribution{IndexLaw::uniform, 0.0};
  if (!text.starts_with(kZipfPrefix)) return std::nullopt;
  const std::string_view number = text.substr(kZipfPrefix.size());
  double alpha = 0.0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), alpha);
  const bool whole =
      !number.empty() && error == std::errc() && end == number.data() + number.size();
  if (!whole || !std::isfinite(alpha) || alpha <= 0.0) return std::nullopt;
  return IndexDistribution{IndexLaw::zipf, alpha};
}

std::string_view bag_size_text(BagSizeLaw law) {
  return word_of(law, kBagSizeWords);
}

std::string_view embedding_optimizer_text(EmbeddingOptimizer optimizer) {
  return word_of(optimizer, kOptimizerWords);
}

std::string_view shard_split_text(ShardSplit split) {
  return word_of(split, kSplitWords);
}

std::string_view sharding_scheme_text(ShardingScheme scheme) {
  return word_of(scheme, kSchemeWords);
}

std::string sharding_text(const DlrmSharding& sharding) {
  if (sharding.scheme == ShardingScheme::explicit_plan) return sharding.plan;
  return std::string(sharding_scheme_text(sharding.scheme));
}

std::string_view stage_name(ZeroStage stage) {
  return word_of(stage, kStageWords);
}

std::string state_sharding_text(const StateSharding& sharding) {
  if (sharding.automatic) return "auto";
  std::string text(stage_name(sharding.stage));
  if (sharding.memory_proportional && sharding.stage != ZeroStage::replicated)
    text += kProportionalSuffix;
  return text;
}

std::optional<StateSharding> state_sharding_from_text(std::string_view text) {
  for (const StateSharding& sharding : kStateShardings)
    if (state_sharding_text(sharding) == text) return sharding;
  return std::nullopt;
}

std::string_view comm_backend_text(CommBackend backend) {
  return word_of(backend, kBackendWords);
}

std::string_view timeline_mode_text(TimelineMode mode) {
  return word_of(mode, kTimelineWords);
}

std::string_view device_kind_request_text(DeviceKindRequest request) {
  return word_of(request, kDeviceKindWords);
}

}  // namespace scaletune::job
