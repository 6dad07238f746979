// The CUDA loss kernels' per-element bodies (kernels/cuda/detail/loss_math.hpp), run as the
// kernels run them (softmax cross-entropy: one block of 256 threads per sample, fp32 partials
// and a tree for the max and the sum of exponentials; per-sample fp32 losses summed in double),
// against the host softmax_cross_entropy and binary_cross_entropy_with_logits (double) on the
// same logits: 1, 10, 1,000 and 50,257 classes (GPT-2's vocabulary), logits out to +-100 for the
// binary loss, with grad_scale multiplying only the gradient; fp32 tolerance 1e-5. The label
// checks flag exactly what the host refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "kernels/cuda/detail/loss_math.hpp"
#include "kernels/host/loss.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_matrix;
using test::host_values;

constexpr std::size_t kThreads = 256;

/// op-reduction of term(k) over [0, n) in the softmax kernel's order.
float block_reduce(std::size_t n, float init, const std::function<float(std::size_t)>& term,
                   const std::function<float(float, float)>& op) {
  std::vector<float> part(kThreads, init);
  for (std::size_t t = 0; t < kThreads; ++t)
    for (std::size_t k = t; k < n; k += kThreads) part[t] = op(part[t], term(k));
  for (std::size_t width = kThreads / 2; width > 0; width /= 2)
    for (std::size_t t = 0; t < width; ++t) part[t] = op(part[t], part[t + width]);
  return part[0];
}

bool near(double got, double want, double tol = 1e-5) {
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

struct KernelLoss {
  double loss_sum = 0.0;
  std::vector<float> dlogits;
};

/// The softmax cross-entropy kernel on the host.
KernelLoss kernel_softmax_ce(const std::vector<float>& logits, const std::vector<int>& labels,
                             std::size_t classes, float scale, float grad_scale) {
  KernelLoss out{0.0, std::vector<float>(logits.size())};
  const float grad_factor = detail::loss_grad_factor(scale, grad_scale);
  for (std::size_t n = 0; n < labels.size(); ++n) {
    const float* l = logits.data() + n * classes;
    const float m = block_reduce(
        classes, -INFINITY, [&](std::size_t k) { return l[k]; },
        [](float a, float b) { return std::fmax(a, b); });
    const float z = block_reduce(
        classes, 0.0f, [&](std::size_t k) { return std::exp(l[k] - m); },
        [](float a, float b) { return a + b; });
    out.loss_sum += detail::cross_entropy_loss(z, m, l[labels[n]], scale);
    for (std::size_t k = 0; k < classes; ++k)
      out.dlogits[n * classes + k] =
          detail::cross_entropy_grad(l[k], m, z, static_cast<int>(k) == labels[n], grad_factor);
  }
  return out;
}

struct CeCase {
  std::size_t rows, classes;
};

class CudaSoftmaxCrossEntropyMath : public ::testing::TestWithParam<CeCase> {};

TEST_P(CudaSoftmaxCrossEntropyMath, LossAndGradientMatchHost) {
  const auto [rows, classes] = GetParam();
  const std::vector<float> logits = test::uniform_values(rows * classes, 1, -8.0f, 8.0f);
  std::vector<int> labels(rows);
  for (std::size_t n = 0; n < rows; ++n) labels[n] = static_cast<int>((n * 7919) % classes);
  const Labels host_labels("labels", rows);
  std::copy(labels.begin(), labels.end(), host_labels.data());
  const float scale = 1.0f / 64.0f;
  const Tensor2 dlogits("dlogits", rows, classes);
  const double host_loss =
      softmax_cross_entropy(host_matrix(logits, rows, classes), host_labels, scale, dlogits);

  for (const float grad_scale : {1.0f, 1024.0f}) {
    const KernelLoss got = kernel_softmax_ce(logits, labels, classes, scale, grad_scale);
    EXPECT_TRUE(near(got.loss_sum, host_loss)) << got.loss_sum << " vs host " << host_loss;
    std::size_t misses = 0;
    for (std::size_t i = 0; i < got.dlogits.size(); ++i)
      misses += near(got.dlogits[i], double{dlogits.data()[i]} * grad_scale) ? 0 : 1;
    EXPECT_EQ(misses, 0u) << "grad_scale " << grad_scale;
  }
}

INSTANTIATE_TEST_SUITE_P(Classes, CudaSoftmaxCrossEntropyMath,
                         ::testing::Values(CeCase{5, 1}, CeCase{7, 10}, CeCase{6, 1000},
                                           CeCase{2, 50257}));

TEST(CudaLossMath, ClassLabelCheckFlagsWhatTheHostRefuses) {
  EXPECT_TRUE(detail::class_label_valid(0, 10));
  EXPECT_TRUE(detail::class_label_valid(9, 10));
  EXPECT_FALSE(detail::class_label_valid(10, 10));
  EXPECT_FALSE(detail::class_label_valid(-1, 10));
  EXPECT_FALSE(detail::class_label_valid(std::numeric_limits<std::int32_t>::min(), 10));
  // The host refuses labels outside [0, K) too.
  const Tensor2 logits("l", 1, 10), d("d", 1, 10);
  const Labels bad("labels", 1);
  bad(0) = 10;
  EXPECT_THROW(softmax_cross_entropy(logits, bad, 1.0f, d), std::invalid_argument);
}

TEST(CudaLossMath, BinaryCrossEntropyMatchesHost) {
  std::vector<float> x;
  for (int i = -300; i <= 300; ++i) x.push_back(static_cast<float>(i) / 10.0f);
  for (const float far : {50.0f, 100.0f, 1e4f}) {
    x.push_back(far);
    x.push_back(-far);
  }
  const std::size_t n = 2 * x.size();
  std::vector<float> logits, labels;
  for (const float v : x)
    for (const float y : {0.0f, 1.0f}) {
      logits.push_back(v);
      labels.push_back(y);
    }
  const Vector host_labels("labels", n);
  std::copy(labels.begin(), labels.end(), host_labels.data());
  const float scale = 0.5f, grad_scale = 8.0f;
  const Tensor2 dlogits("dlogits", n, 1);
  const double host_loss =
      binary_cross_entropy_with_logits(host_matrix(logits, n, 1), host_labels, scale, dlogits);
  double loss = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const detail::BceTerms t = detail::bce_with_logits(logits[i], labels[i], scale,
                                                       detail::loss_grad_factor(scale, grad_scale));
    loss += t.loss;
    const double want = double{dlogits.data()[i]} * grad_scale;
    // Gradients as small as e^-100 keep their relative accuracy (no 1 - t).
    EXPECT_TRUE(std::abs(t.grad - want) <= 1e-5 * std::abs(want) + 1e-30)
        << "x " << logits[i] << " y " << labels[i] << ": " << t.grad << " vs host " << want;
  }
  EXPECT_TRUE(near(loss, host_loss)) << loss << " vs host " << host_loss;
}

TEST(CudaLossMath, BinaryLabelCheckFlagsWhatTheHostRefuses) {
  for (const float ok : {0.0f, -0.0f, 1.0f}) EXPECT_TRUE(detail::binary_label_valid(ok)) << ok;
  for (const float bad : {0.5f, -1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_FALSE(detail::binary_label_valid(bad)) << bad;
    const Tensor2 logits("l", 1, 1), d("d", 1, 1);
    const Vector labels("labels", 1);
    labels(0) = bad;
    EXPECT_THROW(binary_cross_entropy_with_logits(logits, labels, 1.0f, d), std::invalid_argument)
        << bad;
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
