#include "kernels/transformer/gpt_init.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::kernels {

namespace {

std::size_t size(int value) {
  return static_cast<std::size_t>(value);
}

void fill_normal(std::mt19937_64& rng, float std_dev, float* out, std::size_t count) {
  std::normal_distribution<float> normal(0.0f, std_dev);
  for (std::size_t i = 0; i < count; ++i) out[i] = normal(rng);
}

/// One block in TransformerBlock's layout: ln1 gamma, ln1 beta, qkv w, qkv b, proj w, proj b,
/// ln2 gamma, ln2 beta, fc1 w, fc1 b, fc2 w, fc2 b.
void init_block(const GptShape& shape, std::mt19937_64& rng, float* out) {
  const std::size_t h = size(shape.hidden), f = h * size(shape.ffn_mult);
  const float weight_std = 0.02f;
  const auto residual_std = static_cast<float>(0.02 / std::sqrt(2.0 * shape.layers));
  std::size_t at = 0;
  const auto constant = [&](std::size_t n, float value) {
    std::fill(out + at, out + at + n, value);
    at += n;
  };
  const auto normal = [&](std::size_t n, float std_dev) {
    fill_normal(rng, std_dev, out + at, n);
    at += n;
  };
  constant(h, 1.0f), constant(h, 0.0f);  // ln1
  normal(3 * h * h, weight_std), constant(3 * h, 0.0f);
  normal(h * h, residual_std), constant(h, 0.0f);
  constant(h, 1.0f), constant(h, 0.0f);  // ln2
  normal(f * h, weight_std), constant(f, 0.0f);
  normal(h * f, residual_std), constant(h, 0.0f);
}

}  // namespace

GptInitializer::GptInitializer(const GptShape& shape, std::uint64_t seed)
    : m_shape(shape), m_rng(seed) {
  GptModel::parameter_count(shape);  // checks the shape
}

void GptInitializer::fill_next_unit(std::span<float> out) {
  const std::vector<std::int64_t> units = GptModel::unit_parameter_counts(m_shape);
  if (m_next >= units.size())
    throw std::logic_error("GptInitializer: all " + std::to_string(units.size()) +
                           " units are drawn");
  if (out.size() != static_cast<std::size_t>(units[m_next]))
    throw std::invalid_argument("GptInitializer: unit " + std::to_string(m_next) + " has " +
                                std::to_string(units[m_next]) + " values, the buffer " +
                                std::to_string(out.size()));
  const std::size_t unit = m_next++;
  const std::size_t h = size(m_shape.hidden);
  if (unit == 0) {
    fill_normal(m_rng, 0.02f, out.data(), out.size());  // wte then wpe
  } else if (unit + 1 < units.size()) {
    init_block(m_shape, m_rng, out.data());
  } else {
    std::fill(out.begin(), out.begin() + static_cast<long>(h), 1.0f);  // ln_f gamma
    std::fill(out.begin() + static_cast<long>(h), out.end(), 0.0f);    // ln_f beta
  }
}

void init_gpt_parameters(const GptShape& shape, std::uint64_t seed, std::span<float> params) {
  const std::int64_t total = GptModel::parameter_count(shape);
  if (params.size() != static_cast<std::size_t>(total))
    throw std::invalid_argument("init_gpt_parameters: params has " + std::to_string(params.size()) +
                                " values, the model " + std::to_string(total));
  GptInitializer init(shape, seed);
  std::size_t at = 0;
  for (const std::int64_t unit : GptModel::unit_parameter_counts(shape)) {
    init.fill_next_unit(params.subspan(at, static_cast<std::size_t>(unit)));
    at += static_cast<std::size_t>(unit);
  }
}

}  // namespace scaletune::kernels
