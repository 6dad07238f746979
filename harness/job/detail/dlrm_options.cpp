#include "harness/job/detail/dlrm_options.hpp"

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "harness/job/detail/dlrm_plans.hpp"
#include "harness/job/detail/dlrm_tables.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 10> kKeys = {"tables",         "tables_from",
                                                    "dense_features", "bottom_mlp",
                                                    "top_mlp",        "index_distribution",
                                                    "bag_size",       "embedding_optimizer",
                                                    "learning_rate",  "plans"};
constexpr int kMaxWidth = 65536;  // dense features and MLP widths
constexpr double kMaxLearningRate = 1000.0;
constexpr std::string_view kDistributionForms =
    "expected \"uniform\" or \"zipf:ALPHA\" with ALPHA a finite decimal number > 0, e.g. "
    "\"zipf:1.05\"";

std::vector<int> read_widths(const TableReader& workload, std::string_view key,
                             const std::vector<int>& fallback) {
  const toml::node* node = workload.find(key);
  if (node == nullptr) return fallback;
  const toml::array* list = node->as_array();
  if (list == nullptr) workload.fail_type(*node, key, "a list of layer widths (integers)");
  if (list->empty())
    workload.fail(*node, key, std::string(key) + " must list at least one layer width");
  std::vector<int> widths;
  for (const toml::node& element : *list)
    widths.push_back(static_cast<int>(workload.as_integer(element, key, 1, kMaxWidth)));
  return widths;
}

IndexDistribution read_distribution(const TableReader& workload,
                                    const IndexDistribution& fallback) {
  const std::optional<std::string> text = workload.string("index_distribution");
  if (!text) return fallback;
  const std::optional<IndexDistribution> distribution = index_distribution_from_text(*text);
  if (!distribution)
    workload.fail(
        *workload.find("index_distribution"), "index_distribution",
        "index_distribution '" + *text + "' is not valid; " + std::string(kDistributionForms));
  return *distribution;
}

void check_top_mlp(const TableReader& workload, const std::vector<int>& top_mlp) {
  if (top_mlp.back() == 1) return;
  const toml::node& list = *workload.find("top_mlp");
  workload.fail(
      list.as_array()->back(), "top_mlp",
      "top_mlp's last width is " + std::to_string(top_mlp.back()) + "; it must be 1 (the logit)");
}

void check_dims(const TableReader& workload, const std::vector<LocatedTable>& tables,
                const std::vector<int>& bottom_mlp) {
  const std::string source = workload.find("bottom_mlp") != nullptr ? "" : " (the default)";
  for (const LocatedTable& table : tables)
    if (table.spec.dim != bottom_mlp.back())
      fail_at(table.dim_at, "dim",
              "table '" + table.spec.name + "' has dim " + std::to_string(table.spec.dim) +
                  " but bottom_mlp's last width is " + std::to_string(bottom_mlp.back()) + source +
                  "; every table's dim must equal it (the interaction takes dot products)");
}

void check_fixed_poolings(const std::vector<LocatedTable>& tables) {
  for (const LocatedTable& table : tables)
    if (table.spec.pooling != std::floor(table.spec.pooling))
      fail_at(table.pooling_at, "pooling",
              "table '" + table.spec.name + "' has pooling " + format_number(table.spec.pooling) +
                  " but bag_size = \"fixed\" needs an integer pooling; round it or use "
                  "bag_size = \"poisson\"");
}

std::string widths_text(const std::vector<int>& widths) {
  std::vector<std::string> words;
  for (const int width : widths) words.push_back(std::to_string(width));
  return join(words, ",");
}

}  // namespace

std::span<const std::string_view> dlrm_option_keys() {
  return kKeys;
}

void read_dlrm_options(const TableReader& workload, WorkloadSpec& spec) {
  DlrmOptions& options = spec.dlrm;
  const std::vector<LocatedTable> tables = read_dlrm_tables(workload);
  for (const LocatedTable& table : tables) options.tables.push_back(table.spec);
  options.tables_from = workload.string("tables_from").value_or("");
  options.dense_features = static_cast<int>(
      workload.integer("dense_features", 1, kMaxWidth).value_or(options.dense_features));
  options.bottom_mlp = read_widths(workload, "bottom_mlp", options.bottom_mlp);
  options.top_mlp = read_widths(workload, "top_mlp", options.top_mlp);
  check_top_mlp(workload, options.top_mlp);
  check_dims(workload, tables, options.bottom_mlp);
  options.index_distribution = read_distribution(workload, options.index_distribution);
  options.bag_size =
      workload.choice("bag_size", kBagSizeLaws, bag_size_text).value_or(options.bag_size);
  if (options.bag_size == BagSizeLaw::fixed) check_fixed_poolings(tables);
  options.embedding_optimizer =
      workload.choice("embedding_optimizer", kEmbeddingOptimizers, embedding_optimizer_text)
          .value_or(options.embedding_optimizer);
  options.learning_rate =
      workload.positive_number("learning_rate", kMaxLearningRate).value_or(options.learning_rate);
  options.plans = read_dlrm_plans(workload, options.tables);
}

std::string describe_dlrm_options(const WorkloadSpec& spec) {
  const DlrmOptions& options = spec.dlrm;
  std::int64_t total_rows = 0;
  for (const EmbeddingTableSpec& table : options.tables) total_rows += table.rows;
  std::vector<std::string> plan_names;
  for (const ExplicitPlan& plan : options.plans) plan_names.push_back(plan.name);
  return "tables=" + std::to_string(options.tables.size()) +
         " total_rows=" + std::to_string(total_rows) +
         " dim=" + std::to_string(options.bottom_mlp.back()) +
         " dense_features=" + std::to_string(options.dense_features) +
         " bottom_mlp=" + widths_text(options.bottom_mlp) +
         " top_mlp=" + widths_text(options.top_mlp) +
         " index_distribution=" + index_distribution_text(options.index_distribution) +
         " bag_size=" + std::string(bag_size_text(options.bag_size)) + " embedding_optimizer=" +
         std::string(embedding_optimizer_text(options.embedding_optimizer)) +
         " learning_rate=" + format_number(options.learning_rate) +
         " plans=" + (plan_names.empty() ? "-" : join(plan_names, ","));
}

}  // namespace scaletune::job::detail
