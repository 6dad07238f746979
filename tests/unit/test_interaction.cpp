// DLRM's dot interaction against naive loops in double (pair order written out for F = 4, as
// dlrm_s_pytorch's li/lj lists), central finite differences, and MLPerf DLRM's output width.

#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/host/interaction.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::to_doubles;

using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

/// dlrm_s_pytorch: li, lj = [i for i in range(F) for j in range(i)], [j for ... range(i)].
Pairs dlrm_pairs(std::size_t features) {
  Pairs pairs;
  for (std::size_t i = 0; i < features; ++i)
    for (std::size_t j = 0; j < i; ++j) pairs.emplace_back(i, j);
  return pairs;
}

double naive_dot(const Tensor3& z, std::size_t n, std::size_t i, std::size_t j) {
  double sum = 0.0;
  for (std::size_t d = 0; d < z.extent(2); ++d) sum += double{z(n, i, d)} * z(n, j, d);
  return sum;
}

/// [N * (D + pairs)]: z[n, 0, :] then the dots in the order of `pairs`.
std::vector<double> naive_forward(const Tensor3& z, const Pairs& pairs) {
  std::vector<double> out;
  for (std::size_t n = 0; n < z.extent(0); ++n) {
    for (std::size_t d = 0; d < z.extent(2); ++d) out.push_back(z(n, 0, d));
    for (const auto& [i, j] : pairs) out.push_back(naive_dot(z, n, i, j));
  }
  return out;
}

/// [N * F * D]: d/dz of sum dout * out, by the product rule on each dot.
std::vector<double> naive_backward(const Tensor3& z, const Tensor2& dout, const Pairs& pairs) {
  const std::size_t features = z.extent(1), dim = z.extent(2);
  std::vector<double> dz(z.size(), 0.0);
  const auto at = [&](std::size_t n, std::size_t f, std::size_t d) {
    return (n * features + f) * dim + d;
  };
  for (std::size_t n = 0; n < z.extent(0); ++n) {
    for (std::size_t d = 0; d < dim; ++d) dz[at(n, 0, d)] += dout(n, d);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto [i, j] = pairs[p];
      for (std::size_t d = 0; d < dim; ++d) {
        dz[at(n, i, d)] += double{dout(n, dim + p)} * z(n, j, d);
        dz[at(n, j, d)] += double{dout(n, dim + p)} * z(n, i, d);
      }
    }
  }
  return dz;
}

TEST(Interaction, OutputWidthOfMlperfDlrm) {
  // 128-wide bottom MLP output and 26 embedding tables: F = 27 vectors.
  EXPECT_EQ(interaction_output_width(27, 128), 128 + 27 * 26 / 2);
  EXPECT_EQ(interaction_output_width(27, 128), 479);
  EXPECT_EQ(interaction_output_width(1, 16), 16);
}

TEST(Interaction, ForwardFollowsDlrmPairOrderForFourFeatures) {
  constexpr std::size_t kN = 3, kF = 4, kD = 5;
  const Tensor3 z("z", kN, kF, kD);
  fill_uniform(z, 1, -1.0f, 1.0f);
  const Tensor2 out("out", kN, kD + 6);
  Kokkos::deep_copy(out, 9.0f);
  interaction_forward(z, out);
  const Pairs order{{1, 0}, {2, 0}, {2, 1}, {3, 0}, {3, 1}, {3, 2}};
  ASSERT_EQ(dlrm_pairs(kF), order);
  EXPECT_TRUE(all_near(to_doubles(out), naive_forward(z, order), 1e-6, 1e-6));
}

TEST(Interaction, ForwardMatchesNaiveForMlperfFeatureCount) {
  constexpr std::size_t kN = 4, kF = 27, kD = 16;
  const Tensor3 z("z", kN, kF, kD);
  fill_uniform(z, 2, -1.0f, 1.0f);
  const Tensor2 out("out", kN, kD + kF * (kF - 1) / 2);
  interaction_forward(z, out);
  EXPECT_TRUE(all_near(to_doubles(out), naive_forward(z, dlrm_pairs(kF)), 1e-5, 1e-5));
}

TEST(Interaction, BackwardMatchesNaiveProductRule) {
  constexpr std::size_t kN = 3, kF = 5, kD = 6;
  const Tensor3 z("z", kN, kF, kD), dz("dz", kN, kF, kD);
  const Tensor2 dout("dout", kN, kD + 10);
  fill_uniform(z, 3, -1.0f, 1.0f);
  fill_uniform(dout, 4, -1.0f, 1.0f);
  Kokkos::deep_copy(dz, 9.0f);
  interaction_backward(z, dout, dz);
  EXPECT_TRUE(all_near(to_doubles(dz), naive_backward(z, dout, dlrm_pairs(kF)), 1e-5, 1e-5));
}

TEST(Interaction, BackwardMatchesCentralFiniteDifferences) {
  // loss = sum c * out is quadratic in z, so central differences have no truncation error; what
  // is left is float rounding of the < 4 dots that touch one z value (each within
  // D * 6e-8 = 4e-7 of exact), so the quotient is off by < 2 * 4 * 4e-7 / (2 h) = 2e-5.
  constexpr float kH = 0.1f;
  constexpr std::size_t kN = 2, kF = 4, kD = 6;
  const Tensor3 z("z", kN, kF, kD), dz("dz", kN, kF, kD);
  const Tensor2 c("c", kN, kD + 6), out("out", kN, kD + 6);
  fill_uniform(z, 5, -1.0f, 1.0f);
  fill_uniform(c, 6, -1.0f, 1.0f);
  const auto loss = [&] {
    interaction_forward(z, out);
    double sum = 0.0;
    for (std::size_t k = 0; k < out.size(); ++k) sum += double{c.data()[k]} * out.data()[k];
    return sum;
  };
  interaction_backward(z, c, dz);
  std::vector<double> fd;
  for (std::size_t k = 0; k < z.size(); ++k) {
    float& v = z.data()[k];
    const float saved = v;
    v = saved + kH;
    const double up_at = v, up = loss();
    v = saved - kH;
    const double down_at = v, down = loss();
    v = saved;
    fd.push_back((up - down) / (up_at - down_at));
  }
  EXPECT_TRUE(all_near(to_doubles(dz), fd, 2e-5));
}

TEST(Interaction, RejectsShapesThatDoNotMatch) {
  const Tensor3 z("z", 2, 4, 5);
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { interaction_forward(z, Tensor2("out", 2, 10)); }, "out is [2, 10], expected [2, 11]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { interaction_forward(Tensor3("z", 2, 0, 5), Tensor2("out", 2, 5)); },
      "z is [2, 0, 5], expected [N, F, D] with F >= 1 and D >= 1"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { interaction_backward(z, Tensor2("dout", 3, 11), Tensor3("dz", 2, 4, 5)); },
      "dout is [3, 11], expected [2, 11]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { interaction_backward(z, Tensor2("dout", 2, 11), Tensor3("dz", 2, 4, 4)); },
      "dz is [2, 4, 4], expected [2, 4, 5]"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>(
      [&] { interaction_backward(z, Tensor2("dout", 2, 11), z); }, "dz must not alias z"));
  EXPECT_TRUE(test::throws_naming<std::invalid_argument>([] { interaction_output_width(0, 16); },
                                                         "features 0, dim 16, expected both >= 1"));
}

}  // namespace
}  // namespace scaletune::kernels
