#pragma once
// Initial weights of a model laid out flat in layer order, from the seed alone (so every rank
// starts from the same model).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/resnet50.hpp"

namespace scaletune::kernels::detail {

/// Fills `values` with a layer's initial parameters (parameter_count() floats): convolution
/// weights normal(0, sqrt(2 / (C R S))) (He et al. 2015, Kaiming normal, fan-in); batch norm
/// gamma = 1 then beta = 0; fully-connected weight and bias uniform(-1/sqrt(F), 1/sqrt(F))
/// (PyTorch's nn.Linear default).
inline void init_layer(const LayerSpec& layer, std::mt19937_64& rng, std::span<float> values) {
  const double fan_in = static_cast<double>(layer.in_channels) * layer.kernel * layer.kernel;
  switch (layer.kind) {
    case LayerKind::convolution: {
      std::normal_distribution<float> weight(0.0f, static_cast<float>(std::sqrt(2.0 / fan_in)));
      for (float& v : values) v = weight(rng);
      break;
    }
    case LayerKind::batch_norm: {
      const std::size_t channels = values.size() / 2;
      std::fill(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(channels), 1.0f);
      std::fill(values.begin() + static_cast<std::ptrdiff_t>(channels), values.end(), 0.0f);
      break;
    }
    case LayerKind::fully_connected: {
      const auto bound = static_cast<float>(1.0 / std::sqrt(fan_in));
      std::uniform_real_distribution<float> weight(-bound, bound);
      for (float& v : values) v = weight(rng);
      break;
    }
  }
}

/// Fills `params` (flat, the concatenation of `layers`' parameters in order) from one
/// std::mt19937_64 seeded with `seed`. Throws std::logic_error when the sizes differ.
inline void init_parameters(const std::vector<LayerSpec>& layers, std::uint64_t seed,
                            std::span<float> params) {
  std::size_t total = 0;
  for (const LayerSpec& layer : layers) total += static_cast<std::size_t>(layer.parameter_count());
  if (total != params.size())
    throw std::logic_error("init_parameters: the layers hold " + std::to_string(total) +
                           " parameters, the buffer " + std::to_string(params.size()));
  std::mt19937_64 rng(seed);
  std::size_t at = 0;
  for (const LayerSpec& layer : layers) {
    const auto count = static_cast<std::size_t>(layer.parameter_count());
    init_layer(layer, rng, params.subspan(at, count));
    at += count;
  }
}

}  // namespace scaletune::kernels::detail
