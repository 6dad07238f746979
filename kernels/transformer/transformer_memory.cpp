#include "kernels/transformer/transformer_memory.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "harness/core/memory_budget.hpp"

namespace scaletune::kernels {

namespace {

constexpr std::int64_t kFloat = sizeof(float);
constexpr std::int64_t kTokenBytes = 2 * sizeof(int);  // a token id and its target

// Parameters of the units gathered or reduced one at a time: embeddings, one block, ln_f.
std::int64_t unit_buffer_count(const GptShape& shape) {
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(shape);
  return units.front() + units[1] + units.back();
}

std::int64_t largest_unit(const GptShape& shape) {
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(shape);
  return *std::max_element(units.begin(), units.end());
}

std::int64_t activation_bytes(const GptShape& shape) {
  return GptModel::activation_bytes(shape) +
         kTokenBytes * std::int64_t{shape.max_micro_batch} * shape.seq_len;
}

}  // namespace

std::int64_t TransformerMemory::total() const {
  return parameters + gradients + optimizer + activations + comm_buffers;
}

std::string TransformerMemory::describe() const {
  return "parameters " + core::format_bytes(parameters) + ", gradients " +
         core::format_bytes(gradients) + ", optimizer state " + core::format_bytes(optimizer) +
         ", activations " + core::format_bytes(activations) + ", communication buffers " +
         core::format_bytes(comm_buffers);
}

TransformerMemory transformer_memory(const GptShape& shape, ZeroStage stage,
                                     std::size_t shard_count, std::size_t scratch_count) {
  const std::int64_t all = GptModel::parameter_count(shape) * kFloat;
  const auto shard = static_cast<std::int64_t>(shard_count) * kFloat;
  const std::int64_t units = unit_buffer_count(shape) * kFloat;
  const auto scratch = static_cast<std::int64_t>(scratch_count) * kFloat;
  // The 16-bit working copy: 2 bytes per parameter of the whole vector or the gather buffers.
  const std::int64_t copy =
      shape.dtype == ops::DType::fp32 ? 0 : (stage == ZeroStage::zero3 ? units : all) / 2;
  TransformerMemory m;
  m.activations = activation_bytes(shape);
  switch (stage) {
    case ZeroStage::replicated:
      m.parameters = all, m.gradients = all, m.optimizer = 2 * all;
      break;
    case ZeroStage::zero1:
      m.parameters = all, m.gradients = all + shard, m.optimizer = 2 * shard;
      break;
    case ZeroStage::zero2:
      m.parameters = all, m.gradients = shard + units, m.optimizer = 2 * shard;
      m.comm_buffers = scratch;
      break;
    case ZeroStage::zero3:
      m.parameters = shard + units, m.gradients = shard + units, m.optimizer = 2 * shard;
      m.comm_buffers = scratch;
      break;
  }
  m.parameters += copy;
  if (shape.dtype == ops::DType::fp16) m.optimizer += 4;  // the loss scaler's overflow flag
  return m;
}

core::MemoryModel transformer_memory_model(const GptShape& shape, ZeroStage stage,
                                           bool memory_proportional, int ranks) {
  const auto n = static_cast<std::size_t>(GptModel::parameter_count(shape));
  const auto scratch = static_cast<std::size_t>(largest_unit(shape));
  GptShape one = shape, two = shape;
  one.max_micro_batch = 1, two.max_micro_batch = 2;
  const std::int64_t per_sample = activation_bytes(two) - activation_bytes(one);
  const TransformerMemory none = transformer_memory(one, stage, 0, scratch);
  const TransformerMemory whole = transformer_memory(one, stage, n, scratch);
  const double state = static_cast<double>(whole.total() - none.total());
  core::MemoryModel model;
  model.activation_bytes_per_sample = static_cast<double>(per_sample);
  // + one element (16 B at most) for a shard one element above its fraction's share
  model.replicated_bytes = static_cast<double>(none.total() - per_sample) + 16.0;
  if (memory_proportional)
    model.state_bytes = state;
  else
    model.replicated_bytes += state / ranks;
  return model;
}

}  // namespace scaletune::kernels
