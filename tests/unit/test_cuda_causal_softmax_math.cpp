// The CUDA causal softmax kernels' per-element bodies (kernels/cuda/detail/
// causal_softmax_math.hpp), run as the kernels run them (one warp per row: fp32 lane partials
// strided by 32, then a tree), against the host causal_softmax_forward / _backward (sums in
// double) on the same scores: sequences of 1, 5, 33 and 300 (rows longer than a warp), scores
// spread over [-20, 20) so that the max subtraction matters, fp32 tolerance 1e-5, and the
// masked upper triangle exactly 0 in both.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "kernels/cuda/detail/causal_softmax_math.hpp"
#include "kernels/host/causal_softmax.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

constexpr std::size_t kLanes = 32;

/// op-reduction of term(j) over the visible keys j <= i, in the kernels' order.
float warp_reduce(std::size_t i, float init, const std::function<float(std::size_t)>& term,
                  const std::function<float(float, float)>& op) {
  std::vector<float> lane(kLanes, init);
  for (std::size_t l = 0; l < kLanes; ++l)
    for (std::size_t j = l; j <= i; j += kLanes) lane[l] = op(lane[l], term(j));
  for (std::size_t width = kLanes / 2; width > 0; width /= 2)
    for (std::size_t l = 0; l < width; ++l) lane[l] = op(lane[l], lane[l + width]);
  return lane[0];
}

float plus(float a, float b) {
  return a + b;
}
float larger(float a, float b) {
  return std::fmax(a, b);
}

Tensor3 host_scores(const std::vector<float>& v, std::size_t r, std::size_t s) {
  const Tensor3 t("t", r, s, s);
  std::copy(v.begin(), v.end(), t.data());
  return t;
}

/// Expects |got - want| <= 1e-5 max(1, |want|), and exact zeros where want is exactly 0.
void expect_close(const std::vector<float>& got, const Tensor3& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t misses = 0, first = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double w = want.data()[k];
    const bool ok =
        w == 0.0 ? got[k] == 0.0f : std::abs(got[k] - w) <= 1e-5 * std::max(1.0, std::abs(w));
    if (!ok && misses++ == 0) first = k;
  }
  EXPECT_EQ(misses, 0u) << what << ": first at " << first << ": " << got[first] << " vs host "
                        << want.data()[first];
}

class CudaCausalSoftmaxMath : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CudaCausalSoftmaxMath, ForwardAndBackwardMatchHost) {
  const std::size_t seq = GetParam(), mats = 3;
  const std::vector<float> s = test::uniform_values(mats * seq * seq, 1, -20.0f, 20.0f);
  const std::vector<float> dp = test::uniform_values(mats * seq * seq, 2, -1.0f, 1.0f);
  const Tensor3 scores = host_scores(s, mats, seq), p("p", mats, seq, seq);
  causal_softmax_forward(scores, p);

  std::vector<float> got_p(s.size()), got_ds(s.size());
  for (std::size_t row = 0; row < mats * seq; ++row) {
    const std::size_t i = row % seq;
    const float* sr = s.data() + row * seq;
    const float m = warp_reduce(
        i, -INFINITY, [&](std::size_t j) { return sr[j]; }, larger);
    const float inv_sum =
        1.0f / warp_reduce(
                   i, 0.0f, [&](std::size_t j) { return std::exp(sr[j] - m); }, plus);
    for (std::size_t j = 0; j < seq; ++j)
      got_p[row * seq + j] =
          detail::causal_visible(i, j) ? detail::causal_softmax_prob(sr[j], m, inv_sum) : 0.0f;
  }
  expect_close(got_p, p, "p");

  // The backward from the host's p, as the kernels get it.
  const Tensor3 ds("ds", mats, seq, seq);
  causal_softmax_backward(p, host_scores(dp, mats, seq), ds);
  for (std::size_t row = 0; row < mats * seq; ++row) {
    const std::size_t i = row % seq;
    const float* pr = p.data() + row * seq;
    const float* dpr = dp.data() + row * seq;
    const float dot = warp_reduce(
        i, 0.0f, [&](std::size_t j) { return pr[j] * dpr[j]; }, plus);
    for (std::size_t j = 0; j < seq; ++j)
      got_ds[row * seq + j] =
          detail::causal_visible(i, j) ? detail::causal_softmax_grad(pr[j], dpr[j], dot) : 0.0f;
  }
  expect_close(got_ds, ds, "dscores");
}

INSTANTIATE_TEST_SUITE_P(SequenceLengths, CudaCausalSoftmaxMath,
                         ::testing::Values(std::size_t{1}, std::size_t{5}, std::size_t{33},
                                           std::size_t{300}));

}  // namespace
}  // namespace scaletune::kernels::cuda
