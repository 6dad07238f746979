// The index arithmetic of the device DLRM interaction kernels (kernels/cuda/detail/
// interaction_math.hpp) against kernels/host/interaction.hpp: pair_at inverts pair_position in
// the host's pair order; the output assembled from a Gram matrix (computed here with the host's
// dot order) equals interaction_forward bit for bit; dz = G Z from the symmetric pair-gradient
// matrix plus the pass-through equals interaction_backward.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/detail/interaction_math.hpp"
#include "kernels/host/interaction.hpp"

namespace scaletune::kernels::cuda::detail {
namespace {

TEST(InteractionMath, PairAtInvertsPairPositionInTheHostOrder) {
  std::int64_t p = 0;
  for (std::int64_t i = 1; i < 700; ++i)
    for (std::int64_t j = 0; j < i; ++j, ++p) {
      ASSERT_EQ(pair_position(i, j), p);
      const FeaturePair pair = pair_at(p);
      ASSERT_EQ(pair.i, i) << p;
      ASSERT_EQ(pair.j, j) << p;
    }
  // Far beyond any DLRM: for the last pair of i = 3037000499 the double estimate alone is one
  // too large, and the integer correction must fix it.
  for (const std::int64_t i : {std::int64_t{94906266}, std::int64_t{3037000499}}) {
    for (const std::int64_t j : {std::int64_t{0}, i / 2, i - 1}) {
      const FeaturePair pair = pair_at(pair_position(i, j));
      EXPECT_EQ(pair.i, i);
      EXPECT_EQ(pair.j, j);
    }
  }
  EXPECT_EQ(interaction_width(27, 128), 128 + 27 * 26 / 2);
}

/// z [N, F, D] uniform in [-1, 1) from a fixed seed.
Tensor3 random_z(std::size_t n, std::size_t f, std::size_t d, unsigned seed) {
  Tensor3 z("z", n, f, d);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < z.size(); ++i) z.data()[i] = uniform(gen);
  return z;
}

TEST(InteractionMath, OutputAssembledFromTheGramMatrixEqualsHostForward) {
  const std::size_t n = 3, f = 7, d = 5;
  const Tensor3 z = random_z(n, f, d, 1);
  const auto width = static_cast<std::size_t>(interaction_width(f, d));
  Tensor2 want("out", n, width);
  interaction_forward(z, want);
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<float> gram(f * f);  // the host's dot order: d ascending, from 0
    for (std::size_t i = 0; i < f; ++i)
      for (std::size_t j = 0; j < f; ++j) {
        float dot = 0.0f;
        for (std::size_t k = 0; k < d; ++k) dot += z(s, i, k) * z(s, j, k);
        gram[i * f + j] = dot;
      }
    for (std::size_t col = 0; col < width; ++col) {
      float got = 0.0f;
      if (col < d) {
        got = z(s, 0, col);
      } else {
        const FeaturePair pair = pair_at(static_cast<std::int64_t>(col - d));
        got = gram[static_cast<std::size_t>(pair.i) * f + static_cast<std::size_t>(pair.j)];
      }
      const float w = want(s, col);
      EXPECT_EQ(std::memcmp(&got, &w, sizeof(float)), 0) << "sample " << s << " col " << col;
    }
  }
}

TEST(InteractionMath, GramGradientTimesZPlusPassThroughEqualsHostBackward) {
  const std::size_t n = 2, f = 6, d = 9;
  const Tensor3 z = random_z(n, f, d, 2);
  const auto width = static_cast<std::size_t>(interaction_width(f, d));
  Tensor2 dout("dout", n, width);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < dout.size(); ++i) dout.data()[i] = uniform(gen);
  Tensor3 want("dz", n, f, d);
  interaction_backward(z, dout, want);
  for (std::size_t s = 0; s < n; ++s) {
    const auto dout_at = [&](std::int64_t c) { return dout(s, static_cast<std::size_t>(c)); };
    for (std::size_t i = 0; i < f; ++i) {
      EXPECT_EQ(gram_gradient(dout_at, d, i, i), 0.0f);
      for (std::size_t k = 0; k < d; ++k) {
        double got = i == 0 ? dout(s, k) : 0.0;  // the pass-through (add_bottom)
        for (std::size_t j = 0; j < f; ++j) {
          const float g = gram_gradient(dout_at, d, i, j);
          EXPECT_EQ(g, gram_gradient(dout_at, d, j, i));
          got += static_cast<double>(g) * z(s, j, k);
        }
        EXPECT_NEAR(got, want(s, i, k), 1e-5) << "sample " << s << " feature " << i;
      }
    }
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda::detail
