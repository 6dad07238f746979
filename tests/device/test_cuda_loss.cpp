// Softmax cross-entropy and binary cross-entropy with logits (kernels/cuda/loss.hpp) against the
// host softmax_cross_entropy / binary_cross_entropy_with_logits (double) on the same logits and
// labels: fp32 (1e-5) and fp16 / bf16 logits (rounded first; gradients within their
// tolerances, the fp64 loss sum within 1e-5 relative), 1, 10, 1,000 and 50,257 classes, one
// sample and many; loss_sum accumulates over calls, grad_scale scales only the gradient,
// dlogits may overwrite the logits, and a bad label sets the flag (its sample adds no loss and
// gets a zero gradient) while the others are unaffected. Argument checks run without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/loss.hpp"
#include "kernels/host/loss.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::expect_all_close;

constexpr float kScale = 1.0f / 32.0f;
constexpr float kGradScale = 256.0f;

/// The elements of t times factor.
std::vector<float> times(const Tensor2& t, float factor) {
  std::vector<float> v(t.data(), t.data() + t.size());
  for (float& x : v) x *= factor;
  return v;
}

/// |got - want| <= 1e-5 max(1, |want|).
void expect_loss(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-5 * std::max(1.0, std::abs(want))) << what;
}

/// The loss sum, bad-label flag and workspace of one loss over `rows` samples, zeroed.
struct LossOutputs {
  explicit LossOutputs(std::size_t rows)
      : loss(std::vector<double>{0.0}),
        bad(std::vector<int>{0}),
        workspace(std::max<std::size_t>(1, loss_workspace_bytes(static_cast<std::int64_t>(rows)))) {
  }
  double loss_value() const { return loss.to_host()[0]; }
  int bad_value() const { return bad.to_host()[0]; }
  DeviceBuffer<double> loss;
  DeviceBuffer<int> bad;
  DeviceBuffer<std::byte> workspace;
};

/// Logits in [-8, 8) rounded to `type`, and labels (n * 7919) % classes.
struct CeData {
  std::vector<float> logits;
  std::vector<std::int32_t> labels;
};
CeData ce_data(core::DType type, std::size_t rows, std::size_t classes) {
  CeData d{testing::uniform_vector(rows * classes, 1), std::vector<std::int32_t>(rows)};
  for (float& v : d.logits) v *= 8.0f;
  d.logits = testing::rounded(type, d.logits);
  for (std::size_t n = 0; n < rows; ++n)
    d.labels[n] = static_cast<std::int32_t>((n * 7919) % classes);
  return d;
}

/// The host loss over the samples whose label is in [0, classes), and its dlogits.
double host_softmax_ce(const CeData& d, std::size_t classes, std::vector<float>* dlogits) {
  std::vector<std::size_t> valid;
  for (std::size_t n = 0; n < d.labels.size(); ++n)
    if (d.labels[n] >= 0 && static_cast<std::size_t>(d.labels[n]) < classes) valid.push_back(n);
  const Tensor2 logits("logits", valid.size(), classes), dl("dl", valid.size(), classes);
  const Labels labels("labels", valid.size());
  for (std::size_t v = 0; v < valid.size(); ++v) {
    labels(v) = d.labels[valid[v]];
    for (std::size_t k = 0; k < classes; ++k) logits(v, k) = d.logits[valid[v] * classes + k];
  }
  const double loss = kernels::softmax_cross_entropy(logits, labels, kScale, dl);
  dlogits->assign(d.labels.size() * classes, 0.0f);
  for (std::size_t v = 0; v < valid.size(); ++v)
    for (std::size_t k = 0; k < classes; ++k) (*dlogits)[valid[v] * classes + k] = dl(v, k);
  return loss;
}

class CudaLoss : public testing::DeviceTest, public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaLoss, SoftmaxCrossEntropyMatchesHostAndAccumulates) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  struct Shape {
    std::size_t rows, classes;
  };
  for (const auto [rows, classes] :
       {Shape{1, 1}, Shape{7, 10}, Shape{1500, 1000}, Shape{3, 50257}}) {
    const std::string what = std::to_string(rows) + "x" + std::to_string(classes);
    const CeData d = ce_data(type, rows, classes);
    std::vector<float> host_dl;
    const double host_loss = host_softmax_ce(d, classes, &host_dl);

    DeviceActivations logits_d(type, d.logits), dl_d(type, d.logits.size(), 7.0f);
    const DeviceBuffer<std::int32_t> labels_d{std::span<const std::int32_t>(d.labels)};
    LossOutputs out(rows);
    const auto r = static_cast<std::int64_t>(rows), k = static_cast<std::int64_t>(classes);
    softmax_cross_entropy(stream.get(), type, r, k, kScale, kGradScale, logits_d.data(),
                          labels_d.data(), dl_d.data(), out.loss.data(), out.bad.data(),
                          out.workspace.data(), out.workspace.size());
    stream.sync();
    std::vector<float> want = host_dl;
    for (float& v : want) v *= kGradScale;
    expect_all_close(dl_d.to_host(), want, testing::tolerance(type), "dlogits " + what);
    expect_loss(out.loss_value(), host_loss, "loss " + what);
    EXPECT_EQ(out.bad_value(), 0) << what;

    // Again in place, grad_scale 1: the loss adds up, the gradient overwrites the logits.
    softmax_cross_entropy(stream.get(), type, r, k, kScale, 1.0f, logits_d.data(), labels_d.data(),
                          logits_d.data(), out.loss.data(), out.bad.data(), out.workspace.data(),
                          out.workspace.size());
    stream.sync();
    expect_all_close(logits_d.to_host(), host_dl, testing::tolerance(type), "in place " + what);
    expect_loss(out.loss_value(), 2 * host_loss, "accumulated loss " + what);
  }
}

TEST_P(CudaLoss, BadClassLabelsSetTheFlagAndAddNothing) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  constexpr std::size_t rows = 6, classes = 5;
  CeData d = ce_data(type, rows, classes);
  d.labels[1] = -1;
  d.labels[4] = static_cast<std::int32_t>(classes);
  std::vector<float> host_dl;
  const double host_loss = host_softmax_ce(d, classes, &host_dl);  // valid samples, bad rows 0

  const DeviceActivations logits_d(type, d.logits);
  DeviceActivations dl_d(type, d.logits.size(), 7.0f);
  const DeviceBuffer<std::int32_t> labels_d{std::span<const std::int32_t>(d.labels)};
  LossOutputs out(rows);
  softmax_cross_entropy(stream.get(), type, rows, classes, kScale, 1.0f, logits_d.data(),
                        labels_d.data(), dl_d.data(), out.loss.data(), out.bad.data(),
                        out.workspace.data(), out.workspace.size());
  stream.sync();
  EXPECT_EQ(out.bad_value(), 1);
  expect_loss(out.loss_value(), host_loss, "loss of the valid samples");
  expect_all_close(dl_d.to_host(), host_dl, testing::tolerance(type), "dlogits");
}

/// Logits in [-12, 12) with far values, rounded to `type`, and labels alternating 0, 1, 1.
struct BceData {
  std::vector<float> logits, labels;
};
BceData bce_data(core::DType type, std::size_t rows) {
  BceData d{testing::uniform_vector(rows, 5), std::vector<float>(rows)};
  for (float& v : d.logits) v *= 12.0f;
  if (rows > 4) {  // a gradient of e^-100 must keep its relative accuracy
    d.logits[rows - 1] = 100.0f;
    d.logits[rows - 2] = -100.0f;
  }
  d.logits = testing::rounded(type, d.logits);
  for (std::size_t n = 0; n < rows; ++n) d.labels[n] = n % 3 == 0 ? 0.0f : 1.0f;
  return d;
}

TEST_P(CudaLoss, BinaryCrossEntropyMatchesHostAndAccumulates) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const std::size_t rows : {std::size_t{1}, std::size_t{1000}, std::size_t{100001}}) {
    const std::string what = std::to_string(rows) + " samples";
    const BceData d = bce_data(type, rows);
    const Tensor2 logits("logits", rows, 1), dl("dl", rows, 1);
    const Vector labels("labels", rows);
    for (std::size_t n = 0; n < rows; ++n) {
      logits(n, 0) = d.logits[n];
      labels(n) = d.labels[n];
    }
    const double host_loss = kernels::binary_cross_entropy_with_logits(logits, labels, kScale, dl);

    DeviceActivations logits_d(type, d.logits), dl_d(type, rows, 7.0f);
    const DeviceBuffer<float> labels_d{std::span<const float>(d.labels)};
    LossOutputs out(rows);
    const auto r = static_cast<std::int64_t>(rows);
    binary_cross_entropy_with_logits(stream.get(), type, r, kScale, kGradScale, logits_d.data(),
                                     labels_d.data(), dl_d.data(), out.loss.data(), out.bad.data(),
                                     out.workspace.data(), out.workspace.size());
    binary_cross_entropy_with_logits(stream.get(), type, r, kScale, 1.0f, logits_d.data(),
                                     labels_d.data(), logits_d.data(), out.loss.data(),
                                     out.bad.data(), out.workspace.data(), out.workspace.size());
    stream.sync();
    expect_all_close(dl_d.to_host(), times(dl, kGradScale), testing::tolerance(type),
                     "dlogits " + what);
    expect_all_close(logits_d.to_host(), times(dl, 1.0f), testing::tolerance(type),
                     "in place " + what);
    expect_loss(out.loss_value(), 2 * host_loss, "accumulated loss " + what);
    EXPECT_EQ(out.bad_value(), 0) << what;
  }
}

TEST_P(CudaLoss, BadBinaryLabelsSetTheFlag) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  const std::vector<float> logits = {0.5f, -1.0f, 2.0f}, labels = {1.0f, 0.5f, 0.0f};
  const DeviceActivations logits_d(type, logits);
  DeviceActivations dl_d(type, 3, 7.0f);
  const DeviceBuffer<float> labels_d{std::span<const float>(labels)};
  LossOutputs out(3);
  binary_cross_entropy_with_logits(stream.get(), type, 3, 1.0f, 1.0f, logits_d.data(),
                                   labels_d.data(), dl_d.data(), out.loss.data(), out.bad.data(),
                                   out.workspace.data(), out.workspace.size());
  stream.sync();
  EXPECT_EQ(out.bad_value(), 1);
  EXPECT_EQ(dl_d.to_host()[1], 0.0f);
  // Samples 0 and 2 only: softplus(-0.5) + softplus(2), with logits rounded to `type`.
  const std::vector<float> x = testing::rounded(type, logits);
  expect_loss(out.loss_value(),
              std::log1p(std::exp(-double{x[0]})) + std::log1p(std::exp(double{x[2]})),
              "loss of the valid samples");
}

INSTANTIATE_TEST_SUITE_P(Types, CudaLoss, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaLossArguments, AreCheckedBeforeTouchingTheDevice) {
  float f = 0.0f;
  double loss = 0.0;
  int bad = 0;
  std::int32_t label = 0;
  alignas(8) std::byte workspace[64];
  try {
    softmax_cross_entropy(nullptr, core::DType::fp32, 17, 4, 1.0f, 1.0f, &f, &label, &f, &loss,
                          &bad, workspace, sizeof workspace);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "softmax_cross_entropy: workspace has 64 bytes, expected at least 68");
  }
  EXPECT_THROW(softmax_cross_entropy(nullptr, core::DType::fp32, 2, 0, 1.0f, 1.0f, &f, &label, &f,
                                     &loss, &bad, workspace, sizeof workspace),
               std::invalid_argument);
  EXPECT_THROW(binary_cross_entropy_with_logits(nullptr, core::DType::fp32, 2, 1.0f, 1.0f, &f, &f,
                                                &f, &loss, nullptr, workspace, sizeof workspace),
               std::invalid_argument);
  EXPECT_EQ(loss_workspace_bytes(1000), 4000u);
  EXPECT_THROW(static_cast<void>(loss_workspace_bytes(-1)), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
