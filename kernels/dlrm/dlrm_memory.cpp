#include "kernels/dlrm/dlrm_memory.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "harness/core/memory_budget.hpp"
#include "kernels/dlrm/mlp.hpp"
#include "kernels/host/huge_page_buffer.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::int64_t kFloat = 4;
constexpr std::int64_t kIndex = 8;

/// The bytes a buffer of `bytes` takes on the host backend: from 2 MiB on a huge-page mapping of
/// whole 2 MiB pages (HostBackend::allocate).
std::int64_t reserved(std::int64_t bytes) {
  return bytes >= HugePageBuffer::kAlignmentBytes ? HugePageBuffer::mapped_bytes_for(bytes) : bytes;
}

void add_shard(const job::DlrmOptions& options, const RankLayout& layout, const LocalShard& local,
               ops::DType table_dtype, DlrmMemory& m) {
  const std::int64_t rows = local.shard.rows();
  const std::int64_t cols = local.shard.cols();
  const std::int64_t bags = local.replica ? layout.local_batch() : layout.global_batch();
  m.tables += reserved(rows * cols * static_cast<std::int64_t>(core::dtype_bytes(table_dtype)));
  if (options.embedding_optimizer == job::EmbeddingOptimizer::rowwise_adagrad)
    m.optimizer_state += reserved(rows * kFloat);
  m.embedding_buffers += reserved(bags * cols * kFloat);
  if (local.replica)
    m.embedding_buffers += reserved(rows * cols * kFloat) + reserved(rows * kIndex);
  m.inputs += reserved((bags + 1) * kIndex) + reserved(local.stats.lookups * kIndex);
  m.sparse_gradients += local.stats.lookups * (kIndex + cols * kFloat);
  m.backward_workspace = std::max(
      m.backward_workspace, local.stats.lookups * 16 + (local.stats.unique_rows + 1) * kIndex);
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

std::int64_t lookup_generation_bytes(const job::DlrmOptions& options, const ShardingPlan& plan,
                                     std::int64_t global_batch, int rank) {
  std::int64_t largest = 0;
  for (std::size_t t = 0; t < plan.tables.size(); ++t) {
    const auto lookups =
        static_cast<std::int64_t>(static_cast<double>(global_batch) * options.tables[t].pooling);
    const std::int64_t table = (lookups + global_batch + 1) * kIndex;
    for (const Shard& shard : plan.tables[t].shards)
      if (shard.rank == rank) largest = std::max(largest, table);
  }
  return largest;
}

DlrmMemory estimate_dlrm_memory(const job::DlrmOptions& options, const RankLayout& layout,
                                ops::DType table_dtype, ops::DType compute) {
  DlrmMemory m;
  for (const LocalShard& local : layout.shards) add_shard(options, layout, local, table_dtype, m);
  m.exchange =
      reserved(sum(layout.send_counts) * kFloat) + reserved(sum(layout.recv_counts) * kFloat);
  const std::int64_t batch = layout.local_batch();
  const auto value = static_cast<std::int64_t>(core::dtype_bytes(compute));
  const bool mixed = compute != ops::DType::fp32;
  m.inputs += batch * (options.dense_features * value + kFloat);
  const std::vector<int> bottom = bottom_mlp_widths(options);
  const std::vector<int> top = top_mlp_widths(options);
  const std::int64_t params = mlp_parameter_count(bottom) + mlp_parameter_count(top);
  m.dense_model = 2 * (reserved(params * kFloat) + (mixed ? reserved(params * value) : 0));
  m.optimizer_state += reserved(params * kFloat);
  const int local = layout.local_batch();
  const std::int64_t dim = options.tables.front().dim;
  const auto features = static_cast<std::int64_t>(options.tables.size()) + 1;
  const std::int64_t inter = top.front();
  m.activations = Mlp::activation_bytes(bottom, local, static_cast<int>(value)) +
                  Mlp::activation_bytes(top, local, static_cast<int>(value)) +
                  batch * ((2 * features * dim + 2 * inter + dim) * kFloat + value) + 8;
  if (mixed) m.activations += batch * (dim * kFloat + (2 * inter + dim) * value);
  if (compute == ops::DType::fp16) m.activations += 4;  // the loss scaler's overflow flag
  return m;
}

}  // namespace scaletune::kernels
