#include "kernels/transformer/micro_batch_profile.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "harness/core/stats.hpp"
#include "kernels/ops/transfer.hpp"
#include "kernels/transformer/gpt_init.hpp"
#include "kernels/transformer/token_batch.hpp"

namespace scaletune::kernels {

namespace {

GptShape one_layer(GptShape shape) {
  shape.layers = 1;
  return shape;
}

std::int64_t token_rows(const GptShape& shape) {
  return std::int64_t{shape.max_micro_batch} * shape.seq_len;
}

std::int64_t one_layer_count(const GptShape& shape) {
  return GptModel::parameter_count(one_layer(shape));
}

bool has_working_copy(const GptShape& shape) {
  return shape.dtype != ops::DType::fp32;
}

/// The one-layer model's flat buffers with every block of `shape` reading block 0's windows.
GptBuffers shared_buffers(const GptShape& shape, const ops::Tensor& params,
                          const ops::Tensor& grads, const ops::Tensor& compute) {
  GptBuffers buffers = GptModel::flat_windows(one_layer(shape), params, grads, compute);
  const auto layers = static_cast<std::size_t>(shape.layers);
  buffers.block_params.assign(layers, buffers.block_params[0]);
  buffers.block_grads.assign(layers, buffers.block_grads[0]);
  if (!buffers.block_compute.empty())
    buffers.block_compute.assign(layers, buffers.block_compute[0]);
  return buffers;
}

/// (p75 - p25) / median of `times` (> 0).
double relative_spread(const std::vector<double>& times) {
  return (core::quantile(times, 0.75) - core::quantile(times, 0.25)) / core::median(times);
}

}  // namespace

/// The profiler's ledger, the one-layer parameters (initialised, and their working copy) and
/// gradients, the model and its token ids. Members in allocation order.
struct MicroBatchProfiler::State {
  ops::MemoryLedger ledger;
  ops::Tensor params, grads, compute, tokens, targets;
  GptModel model;

  State(ops::Backend& backend, const GptShape& shape, std::uint64_t seed, std::int64_t budget)
      : ledger(backend, budget),
        params(ledger.make("profile_params", ops::DType::fp32, {one_layer_count(shape)})),
        grads(ledger.make("profile_grads", ops::DType::fp32, {one_layer_count(shape)})),
        compute(has_working_copy(shape)
                    ? ledger.make("profile_params16", shape.dtype, {one_layer_count(shape)})
                    : ops::Tensor()),
        tokens(ledger.make("profile_tokens", ops::DType::int32, {token_rows(shape)})),
        targets(ledger.make("profile_targets", ops::DType::int32, {token_rows(shape)})),
        model(shape, shared_buffers(shape, params, grads, compute), ledger) {
    std::vector<float> initial(static_cast<std::size_t>(params.numel()));
    init_gpt_parameters(one_layer(shape), seed, initial);
    ops::upload_floats(backend, params, initial);
    if (compute.defined()) backend.copy(params, compute);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(tokens.numel()));
    std::vector<std::int32_t> next(ids.size());
    fill_token_batch(seed, 0, shape.seq_len, shape.vocab, ids, next);
    ops::upload_ints(backend, tokens, ids);
    ops::upload_ints(backend, targets, next);
  }
};

std::vector<int> profile_sizes(int largest) {
  if (largest < 1)
    throw std::invalid_argument("profile_sizes: largest " + std::to_string(largest) + " < 1");
  std::vector<int> sizes;
  for (int m = 1; m < largest; m *= 2) sizes.push_back(m);
  sizes.push_back(largest);
  return sizes;
}

core::RankProfile affine_profile(const core::RankProfile& measured) {
  core::micro_batch_time_s(measured, 1);  // checks the profile
  const std::size_t n = measured.micro_batches.size();
  if (n < 2) return measured;
  double sm = 0, st = 0, smm = 0, smt = 0, per_sample = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double m = measured.micro_batches[i], t = measured.time_s[i];
    sm += m, st += t, smm += m * m, smt += m * t, per_sample += t / m / static_cast<double>(n);
  }
  double b = (static_cast<double>(n) * smt - sm * st) / (static_cast<double>(n) * smm - sm * sm);
  double a = (st - b * sm) / static_cast<double>(n);
  if (a < 0) a = 0, b = smt / smm;
  b = std::max(b, 1e-3 * per_sample);
  core::RankProfile fitted = measured;
  for (std::size_t i = 0; i < n; ++i) fitted.time_s[i] = a + b * measured.micro_batches[i];
  return fitted;
}

MicroBatchProfiler::MicroBatchProfiler(ops::Backend& backend, const GptShape& shape,
                                       std::uint64_t seed, core::Device* device,
                                       std::int64_t budget_bytes)
    : m_shape(shape),
      m_seed(seed),
      m_device(device),
      m_state(std::make_unique<State>(backend, shape, seed, budget_bytes)) {}

MicroBatchProfiler::~MicroBatchProfiler() = default;

std::int64_t MicroBatchProfiler::bytes(const GptShape& shape) {
  const std::int64_t params = one_layer_count(shape);
  const std::int64_t copy = has_working_copy(shape) ? 2 * params : 0;
  return 2 * params * std::int64_t{sizeof(float)} + copy + GptModel::activation_bytes(shape) +
         2 * token_rows(shape) * std::int64_t{sizeof(std::int32_t)};
}

core::RankProfile MicroBatchProfiler::run(const std::vector<int>& sizes, int repeats,
                                          const std::function<void()>& before_each) {
  if (sizes.empty() || repeats < 1 || sizes.front() < 1 || sizes.back() > m_shape.max_micro_batch ||
      !std::is_sorted(sizes.begin(), sizes.end()))
    throw std::invalid_argument("MicroBatchProfiler::run: sizes must be ascending in [1, " +
                                std::to_string(m_shape.max_micro_batch) +
                                "] and repeats >= 1, got " + std::to_string(sizes.size()) +
                                " sizes and repeats " + std::to_string(repeats));
  const float scale = 1.0f / static_cast<float>(m_state->tokens.numel());
  const auto fence = [this] {
    if (m_device != nullptr) m_device->fence();
  };
  const auto time = [&](int m) {
    const std::int64_t rows = std::int64_t{m} * m_shape.seq_len;
    before_each();
    fence();
    const auto start = std::chrono::steady_clock::now();
    m_state->model.train_micro_batch(m_state->tokens.rows(0, rows), m_state->targets.rows(0, rows),
                                     scale, 1.0f, BlockDropout{m_seed, 0, 0});
    fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  time(sizes.back());
  std::vector<std::vector<double>> times(sizes.size());
  for (int r = 0; r < repeats; ++r)  // rounds over the sizes: slow spells hit every size alike
    for (std::size_t k = 0; k < sizes.size(); ++k) times[k].push_back(time(sizes[k]));
  core::RankProfile profile;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    profile.micro_batches.push_back(sizes[k]);
    profile.time_s.push_back(core::median(times[k]));
    profile.spread.push_back(relative_spread(times[k]));
  }
  return profile;
}

}  // namespace scaletune::kernels
