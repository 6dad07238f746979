#pragma once
// Synthetic training data that does not depend on how the global batch is split over ranks.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace scaletune::kernels::detail {

/// Host images [N, 3, S, S] (flattened, C, H, W order) and labels [N].
struct SyntheticBatch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

/// Global samples first_sample .. first_sample + batch - 1 of S x S pixels. Sample i draws from
/// std::mt19937_64 seeded with seed * 1000003 + i (mod 2^64): first its label, uniform in
/// [0, num_classes), then its 3 S S pixels, normal(0, 1), in C, H, W order. So a sample is the
/// same on any rank that holds it.
inline SyntheticBatch synthetic_batch(std::uint64_t seed, std::int64_t first_sample, int batch,
                                      int num_classes, int image_size) {
  const std::size_t pixels = std::size_t{3} * image_size * image_size;
  SyntheticBatch out{std::vector<float>(static_cast<std::size_t>(batch) * pixels),
                     std::vector<std::int32_t>(static_cast<std::size_t>(batch))};
  for (std::size_t n = 0; n < out.labels.size(); ++n) {
    std::mt19937_64 rng(seed * 1000003u +
                        static_cast<std::uint64_t>(first_sample + static_cast<std::int64_t>(n)));
    out.labels[n] = std::uniform_int_distribution<int>(0, num_classes - 1)(rng);
    std::normal_distribution<float> pixel(0.0f, 1.0f);
    float* image = out.images.data() + n * pixels;
    for (std::size_t p = 0; p < pixels; ++p) image[p] = pixel(rng);
  }
  return out;
}

}  // namespace scaletune::kernels::detail
