#include "kernels/dlrm/dlrm_memory.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "harness/core/memory_budget.hpp"
#include "kernels/dlrm/shard_table.hpp"
#include "kernels/host/mlp.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::int64_t kFloat = 4;
constexpr std::int64_t kIndex = 8;

void add_shard(const job::DlrmOptions& options, const RankLayout& layout, const LocalShard& local,
               TablePrecision precision, DlrmMemory& m) {
  const std::int64_t rows = local.shard.rows();
  const std::int64_t cols = local.shard.cols();
  const std::int64_t bags = local.replica ? layout.local_batch() : layout.global_batch();
  m.tables += ShardTable::bytes(precision, rows, cols);
  if (options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad)
    m.optimizer_state += rows * kFloat;
  m.embedding_buffers += bags * cols * kFloat;
  if (local.replica) m.embedding_buffers += rows * cols * kFloat + rows * kIndex;
  m.inputs += (bags + 1 + local.stats.lookups) * kIndex;
  const std::int64_t unique = local.stats.unique_rows;
  m.sparse_gradients += unique * (kIndex + cols * kFloat);
  m.backward_workspace =
      std::max(m.backward_workspace, local.stats.lookups * 16 + (unique + 1) * kIndex);
}

std::int64_t sum(const std::vector<std::size_t>& counts) {
  std::int64_t total = 0;
  for (const std::size_t c : counts) total += static_cast<std::int64_t>(c);
  return total;
}

}  // namespace

std::int64_t DlrmMemory::resident() const {
  return tables + optimizer_state + embedding_buffers + exchange + inputs + dense_model +
         activations + sparse_gradients;
}

std::int64_t DlrmMemory::total() const {
  return resident() + backward_workspace;
}

std::string DlrmMemory::describe() const {
  const std::array<std::pair<const char*, std::int64_t>, 9> parts = {{
      {"tables", tables},
      {"optimizer state", optimizer_state},
      {"embedding buffers", embedding_buffers},
      {"all-to-all buffers", exchange},
      {"inputs", inputs},
      {"dense model", dense_model},
      {"activations", activations},
      {"sparse gradients", sparse_gradients},
      {"backward workspace", backward_workspace},
  }};
  std::string text = core::format_bytes(total()) + ":";
  const char* separator = " ";
  for (const auto& [name, bytes] : parts) {
    if (bytes == 0) continue;
    text += separator + std::string(name) + " " + core::format_bytes(bytes);
    separator = ", ";
  }
  return text;
}

int top_mlp_input_width(const job::DlrmOptions& options) {
  if (options.tables.empty()) throw std::invalid_argument("dlrm: no embedding tables");
  const int features = 1 + static_cast<int>(options.tables.size());
  return options.tables.front().dim + features * (features - 1) / 2;
}

std::vector<int> bottom_mlp_widths(const job::DlrmOptions& options) {
  std::vector<int> widths{options.dense_features};
  widths.insert(widths.end(), options.bottom_mlp.begin(), options.bottom_mlp.end());
  return widths;
}

std::vector<int> top_mlp_widths(const job::DlrmOptions& options) {
  std::vector<int> widths{top_mlp_input_width(options)};
  widths.insert(widths.end(), options.top_mlp.begin(), options.top_mlp.end());
  return widths;
}

DlrmMemory estimate_dlrm_memory(const job::DlrmOptions& options, const RankLayout& layout,
                                TablePrecision precision) {
  DlrmMemory m;
  for (const LocalShard& local : layout.shards) add_shard(options, layout, local, precision, m);
  m.exchange = (sum(layout.send_counts) + sum(layout.recv_counts)) * kFloat;
  const std::int64_t batch = layout.local_batch();
  m.inputs += batch * (options.dense_features + 1) * kFloat;
  const std::vector<int> bottom = bottom_mlp_widths(options);
  const std::vector<int> top = top_mlp_widths(options);
  const std::int64_t params = mlp_parameter_count(bottom) + mlp_parameter_count(top);
  m.dense_model = 2 * params * kFloat;
  m.optimizer_state += params * kFloat;
  const int local = layout.local_batch();
  const std::int64_t dim = options.tables.front().dim;
  const auto features = static_cast<std::int64_t>(options.tables.size()) + 1;
  m.activations = Mlp::activation_bytes(bottom, local) + Mlp::activation_bytes(top, local) +
                  batch * (2 * features * dim + 2 * top.front() + dim + 1) * kFloat;
  return m;
}

}  // namespace scaletune::kernels
