// Causal softmax forward and backward against naive loops in double and central finite
// differences.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "kernels/host/causal_softmax.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::fill_uniform;
using test::throws_naming;
using test::to_doubles;

constexpr std::size_t kR = 3, kS = 6;

/// Naive causal softmax in double: exp(s) / sum exp(s) over j <= i (no shift needed for the
/// small scores used here), 0 above the diagonal.
std::vector<double> naive_forward(const Tensor3& scores) {
  const std::size_t rows = scores.extent(0), seq = scores.extent(1);
  std::vector<double> p(rows * seq * seq, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < seq; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j <= i; ++j) sum += std::exp(double{scores(r, i, j)});
      for (std::size_t j = 0; j <= i; ++j)
        p[(r * seq + i) * seq + j] = std::exp(double{scores(r, i, j)}) / sum;
    }
  return p;
}

/// Naive backward in double: ds_ij = sum_l dp_il * d p_il / d s_ij over the unmasked entries,
/// with the softmax Jacobian d p_il / d s_ij = p_il (delta_lj - p_ij).
std::vector<double> naive_backward(const Tensor3& p, const Tensor3& dp) {
  const std::size_t rows = p.extent(0), seq = p.extent(1);
  std::vector<double> ds(rows * seq * seq, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < seq; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        double sum = 0.0;
        for (std::size_t l = 0; l <= i; ++l)
          sum += double{dp(r, i, l)} * p(r, i, l) * ((l == j ? 1.0 : 0.0) - p(r, i, j));
        ds[(r * seq + i) * seq + j] = sum;
      }
  return ds;
}

Tensor3 random_scores(std::size_t rows, std::size_t seq, unsigned seed) {
  const Tensor3 scores("scores", rows, seq, seq);
  fill_uniform(scores, seed, -4.0f, 4.0f);
  return scores;
}

TEST(CausalSoftmax, ForwardMatchesNaive) {
  const Tensor3 scores = random_scores(kR, kS, 1);
  const Tensor3 p("p", kR, kS, kS);
  Kokkos::deep_copy(p, 9.0f);  // stale values must be overwritten
  causal_softmax_forward(scores, p);
  EXPECT_TRUE(all_near(to_doubles(p), naive_forward(scores), 1e-6, 1e-5));
}

TEST(CausalSoftmax, MaskedEntriesAreExactlyZeroAndRowsSumToOne) {
  const Tensor3 scores = random_scores(kR, kS, 2);
  const Tensor3 p("p", kR, kS, kS);
  Kokkos::deep_copy(p, 9.0f);
  causal_softmax_forward(scores, p);
  for (std::size_t r = 0; r < kR; ++r)
    for (std::size_t i = 0; i < kS; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < kS; ++j) {
        if (j > i) {
          EXPECT_EQ(p(r, i, j), 0.0f) << r << "," << i << "," << j;
        }
        sum += p(r, i, j);
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << r << "," << i;
    }
}

TEST(CausalSoftmax, SequenceOfOneGivesProbabilityOne) {
  const Tensor3 scores = random_scores(4, 1, 3);
  const Tensor3 p("p", 4, 1, 1);
  causal_softmax_forward(scores, p);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(p(r, 0, 0), 1.0f);
}

TEST(CausalSoftmax, LargeScoresStayFiniteAndShiftInvariant) {
  // exp(100) overflows fp32: only the subtracted maximum keeps these finite. Softmax is
  // invariant under adding a constant to a row, so the result must equal the unshifted one.
  const Tensor3 scores = random_scores(kR, kS, 4);
  const Tensor3 shifted("shifted", kR, kS, kS);
  for (std::size_t i = 0; i < scores.size(); ++i) shifted.data()[i] = scores.data()[i] + 100.0f;
  const Tensor3 p("p", kR, kS, kS);
  causal_softmax_forward(shifted, p);
  EXPECT_TRUE(all_near(to_doubles(p), naive_forward(scores), 1e-5, 1e-4));
}

TEST(CausalSoftmax, ForwardInPlaceMatchesOutOfPlace) {
  const Tensor3 scores = random_scores(kR, kS, 5);
  const Tensor3 p("p", kR, kS, kS);
  causal_softmax_forward(scores, p);
  causal_softmax_forward(scores, scores);
  EXPECT_TRUE(all_near(to_doubles(scores), to_doubles(p), 0.0));
}

TEST(CausalSoftmax, BackwardMatchesNaiveJacobian) {
  const Tensor3 scores = random_scores(kR, kS, 6);
  const Tensor3 p("p", kR, kS, kS), dp("dp", kR, kS, kS), ds("ds", kR, kS, kS);
  causal_softmax_forward(scores, p);
  fill_uniform(dp, 7, -1.0f, 1.0f);
  Kokkos::deep_copy(ds, 9.0f);
  causal_softmax_backward(p, dp, ds);
  EXPECT_TRUE(all_near(to_doubles(ds), naive_backward(p, dp), 1e-6, 1e-5));
  for (std::size_t r = 0; r < kR; ++r)
    for (std::size_t i = 0; i < kS; ++i)
      for (std::size_t j = i + 1; j < kS; ++j) EXPECT_EQ(ds(r, i, j), 0.0f);
  // In place (dscores aliasing dp) gives the same values.
  causal_softmax_backward(p, dp, dp);
  EXPECT_TRUE(all_near(to_doubles(dp), to_doubles(ds), 0.0));
}

TEST(CausalSoftmax, BackwardMatchesFiniteDifferences) {
  // loss = sum p * w; d loss / d s by central differences of the double-precision forward.
  const Tensor3 scores = random_scores(2, 4, 8);
  const Tensor3 w("w", 2, 4, 4), p("p", 2, 4, 4), ds("ds", 2, 4, 4);
  fill_uniform(w, 9, -1.0f, 1.0f);
  causal_softmax_forward(scores, p);
  causal_softmax_backward(p, w, ds);
  const auto loss = [&]() {
    const std::vector<double> probs = naive_forward(scores);
    double sum = 0.0;
    for (std::size_t i = 0; i < probs.size(); ++i) sum += probs[i] * w.data()[i];
    return sum;
  };
  constexpr float kEps = 1e-2f;
  std::vector<double> fd(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const float saved = scores.data()[i];
    scores.data()[i] = saved + kEps;
    const double plus = loss();
    scores.data()[i] = saved - kEps;
    const double minus = loss();
    scores.data()[i] = saved;
    fd[i] = (plus - minus) / (2.0 * kEps);
  }
  EXPECT_TRUE(all_near(to_doubles(ds), fd, 1e-4, 1e-3));
}

TEST(CausalSoftmax, RejectsBadShapes) {
  const Tensor3 square("square", 2, 3, 3), wide("wide", 2, 3, 4), other("other", 2, 4, 4);
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { causal_softmax_forward(wide, wide); },
                                                   "scores is [2, 3, 4], expected [2, 4, 4]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { causal_softmax_forward(square, other); },
                                                   "p is [2, 4, 4], expected [2, 3, 3]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { causal_softmax_backward(square, other, square); }, "dp is [2, 4, 4]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] { causal_softmax_backward(square, square, other); }, "dscores is [2, 4, 4]"));
}

}  // namespace
}  // namespace scaletune::kernels
