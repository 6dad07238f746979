#include "kernels/transformer/micro_batch_profile.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "harness/core/stats.hpp"
#include "kernels/transformer/token_batch.hpp"

namespace scaletune::kernels {

namespace {

GptShape one_layer(GptShape shape) {
  shape.layers = 1;
  return shape;
}

std::size_t token_rows(const GptShape& shape) {
  return static_cast<std::size_t>(shape.max_micro_batch) * static_cast<std::size_t>(shape.seq_len);
}

std::size_t one_layer_count(const GptShape& shape) {
  return static_cast<std::size_t>(GptModel::parameter_count(one_layer(shape)));
}

// Initialises the one-layer model's parameters and returns its flat buffers with every block of
// `shape` reading block 0's windows.
GptBuffers initialised_shared_buffers(const GptShape& shape, std::uint64_t seed,
                                      const Vector& params, const Vector& grads) {
  const GptShape one = one_layer(shape);
  const std::size_t n = one_layer_count(shape);
  init_gpt_parameters(one, seed, {params.data(), n});
  GptBuffers buffers = GptModel::flat_windows(one, {params.data(), n}, {grads.data(), n});
  buffers.block_params.assign(static_cast<std::size_t>(shape.layers), buffers.block_params[0]);
  buffers.block_grads.assign(static_cast<std::size_t>(shape.layers), buffers.block_grads[0]);
  return buffers;
}

}  // namespace

struct MicroBatchProfiler::State {
  Vector params, grads;
  GptModel model;
  Labels tokens, targets;

  State(const GptShape& shape, std::uint64_t seed)
      : params("profile_params", one_layer_count(shape)),
        grads("profile_grads", one_layer_count(shape)),
        model(shape, initialised_shared_buffers(shape, seed, params, grads)),
        tokens("profile_tokens", token_rows(shape)),
        targets("profile_targets", token_rows(shape)) {
    fill_token_batch(seed, 0, shape.seq_len, shape.vocab, tokens, targets);
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

MicroBatchProfiler::MicroBatchProfiler(const GptShape& shape, std::uint64_t seed)
    : m_shape(shape), m_seed(seed), m_state(std::make_unique<State>(shape, seed)) {}

MicroBatchProfiler::~MicroBatchProfiler() = default;

std::int64_t MicroBatchProfiler::bytes(const GptShape& shape) {
  const auto params = static_cast<std::int64_t>(one_layer_count(shape));
  return 2 * params * std::int64_t{sizeof(float)} + GptModel::activation_bytes(shape) +
         2 * static_cast<std::int64_t>(token_rows(shape) * sizeof(int));
}

core::RankProfile MicroBatchProfiler::run(const std::vector<int>& sizes, int repeats,
                                          const std::function<void()>& before_each) {
  if (sizes.empty() || repeats < 1 || sizes.front() < 1 || sizes.back() > m_shape.max_micro_batch ||
      !std::is_sorted(sizes.begin(), sizes.end()))
    throw std::invalid_argument("MicroBatchProfiler::run: sizes must be ascending in [1, " +
                                std::to_string(m_shape.max_micro_batch) +
                                "] and repeats >= 1, got " + std::to_string(sizes.size()) +
                                " sizes and repeats " + std::to_string(repeats));
  const float scale = 1.0f / static_cast<float>(m_state->tokens.extent(0));
  const auto time = [&](int m) {
    const std::size_t rows =
        static_cast<std::size_t>(m) * static_cast<std::size_t>(m_shape.seq_len);
    before_each();
    const auto start = std::chrono::steady_clock::now();
    m_state->model.forward_backward(Labels(m_state->tokens.data(), rows),
                                    Labels(m_state->targets.data(), rows), scale,
                                    BlockDropout{m_seed, 0, 0});
    Kokkos::fence();
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
  }
  return profile;
}

}  // namespace scaletune::kernels
