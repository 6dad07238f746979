#include "harness/job/detail/transformer_options.hpp"

#include <array>
#include <cmath>
#include <cstdint>

#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 8> kKeys = {
    "layers", "hidden", "heads", "seq_len", "vocab", "ffn_mult", "dropout", "learning_rate"};
constexpr std::int64_t kMaxLayers = 4096;
constexpr std::int64_t kMaxHidden = std::int64_t{1} << 20;
constexpr std::int64_t kMaxHeads = 4096;
constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 20;
constexpr std::int64_t kMaxVocab = std::int64_t{1} << 26;
constexpr std::int64_t kMaxFfnMult = 64;
constexpr double kMaxLearningRate = 1000.0;
constexpr std::string_view kDropoutRange = ">= 0 and < 1 (a probability), e.g. 0.1";

int read_int(const TableReader& workload, std::string_view key, std::int64_t min, std::int64_t max,
             int fallback) {
  return static_cast<int>(workload.integer(key, min, max).value_or(fallback));
}

/// Throws at hidden (at heads when hidden is the default) unless heads divides hidden.
void check_head_split(const TableReader& workload, const TransformerOptions& options) {
  if (options.hidden % options.heads == 0) return;
  const toml::node* hidden = workload.find("hidden");
  const std::string source = hidden != nullptr ? "" : " (the default)";
  workload.fail(hidden != nullptr ? *hidden : *workload.find("heads"), "hidden",
                "hidden " + std::to_string(options.hidden) + source +
                    " is not a multiple of heads " + std::to_string(options.heads) +
                    "; each head takes hidden / heads of the width, so pick hidden divisible by "
                    "heads");
}

}  // namespace

std::span<const std::string_view> transformer_option_keys() {
  return kKeys;
}

void read_transformer_options(const TableReader& workload, WorkloadSpec& spec) {
  TransformerOptions& options = spec.transformer;
  options.layers = read_int(workload, "layers", 1, kMaxLayers, options.layers);
  options.hidden = read_int(workload, "hidden", 1, kMaxHidden, options.hidden);
  options.heads = read_int(workload, "heads", 1, kMaxHeads, options.heads);
  check_head_split(workload, options);
  options.seq_len = read_int(workload, "seq_len", 1, kMaxSeqLen, options.seq_len);
  options.vocab = read_int(workload, "vocab", 2, kMaxVocab, options.vocab);
  options.ffn_mult = read_int(workload, "ffn_mult", 1, kMaxFfnMult, options.ffn_mult);
  // The largest double below 1 makes number_in's closed range the half-open [0, 1).
  options.dropout = workload.number_in("dropout", 0.0, std::nextafter(1.0, 0.0), kDropoutRange)
                        .value_or(options.dropout);
  options.learning_rate =
      workload.positive_number("learning_rate", kMaxLearningRate).value_or(options.learning_rate);
}

std::string describe_transformer_options(const WorkloadSpec& spec) {
  const TransformerOptions& options = spec.transformer;
  return counted(options.layers, "layer") + ", hidden " + std::to_string(options.hidden) + ", " +
         counted(options.heads, "head") + ", seq_len " + std::to_string(options.seq_len) +
         ", vocab " + std::to_string(options.vocab) + ", ffn_mult " +
         std::to_string(options.ffn_mult) + ", dropout " + format_number(options.dropout) +
         ", lr " + format_number(options.learning_rate);
}

}  // namespace scaletune::job::detail
