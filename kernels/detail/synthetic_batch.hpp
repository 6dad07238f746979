#pragma once
// Synthetic training data that does not depend on how the global batch is split over ranks.

#include <cstddef>
#include <cstdint>
#include <random>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// Fills images [N, C, H, W] and labels [N] with global samples first_sample .. first_sample +
/// N - 1. Sample i draws from std::mt19937_64 seeded with seed * 1000003 + i (mod 2^64): first
/// its label, uniform in [0, num_classes), then its C H W pixels, normal(0, 1), in C, H, W
/// order. So a sample is the same on any rank that holds it.
inline void fill_synthetic_batch(std::uint64_t seed, std::int64_t first_sample, int num_classes,
                                 const Tensor4& images, const Labels& labels) {
  const std::size_t pixels = images.extent(1) * images.extent(2) * images.extent(3);
  for (std::size_t n = 0; n < images.extent(0); ++n) {
    std::mt19937_64 rng(seed * 1000003u +
                        static_cast<std::uint64_t>(first_sample + static_cast<std::int64_t>(n)));
    labels(n) = std::uniform_int_distribution<int>(0, num_classes - 1)(rng);
    std::normal_distribution<float> pixel(0.0f, 1.0f);
    float* image = &images(n, 0, 0, 0);
    for (std::size_t p = 0; p < pixels; ++p) image[p] = pixel(rng);
  }
}

}  // namespace scaletune::kernels::detail
