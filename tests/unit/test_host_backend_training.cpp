// HostBackend's losses and optimizer updates: the loss is added to the fp64 slot and grad_scale
// scales only the gradient; SGD with momentum and Adam follow their published formulas (naive
// loops in double here) with MasterUpdate's skip, unscale and 16-bit copy.

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/host/host_backend.hpp"
#include "test_host_backend_support.hpp"
#include "test_ops_support.hpp"

namespace scaletune::kernels {
namespace {

using test::all_near;
using test::converted;
using test::doubles;
using test::tensor_of;
using test::throws_naming;
using test::uniform_floats;

TEST(HostBackendTraining, SoftmaxCrossEntropyAddsTheLossAndScalesOnlyTheGradient) {
  HostBackend backend;
  constexpr std::size_t n = 3, k = 4;
  constexpr float scale = 0.5f, grad_scale = 8.0f;
  std::vector<float> logits = uniform_floats(n * k, 1, -3.0f, 3.0f), dlogits(n * k);
  std::vector<std::int32_t> labels = {2, 0, 3};
  std::vector<double> loss = {1.25};
  backend.softmax_cross_entropy(tensor_of(logits, {n, k}), tensor_of(labels, {n}), scale,
                                grad_scale, tensor_of(dlogits, {n, k}), tensor_of(loss, {1}));
  double want_loss = 1.25;
  std::vector<double> want_grad(n * k);
  for (std::size_t r = 0; r < n; ++r) {
    double z = 0;
    for (std::size_t c = 0; c < k; ++c) z += std::exp(double{logits[r * k + c]});
    want_loss += scale * (std::log(z) - logits[r * k + std::size_t(labels[r])]);
    for (std::size_t c = 0; c < k; ++c)
      want_grad[r * k + c] =
          (std::exp(double{logits[r * k + c]}) / z - (c == std::size_t(labels[r]) ? 1.0 : 0.0)) *
          scale * grad_scale;
  }
  EXPECT_NEAR(loss[0], want_loss, 1e-6);
  EXPECT_TRUE(all_near(doubles(dlogits), want_grad, 1e-6, 1e-6));
}

TEST(HostBackendTraining, BceWithLogitsAddsTheLossAndScalesOnlyTheGradient) {
  HostBackend backend;
  constexpr std::size_t n = 5;
  constexpr float scale = 0.25f, grad_scale = 0.5f;
  std::vector<float> logits = uniform_floats(n, 2, -4.0f, 4.0f), dlogits(n);
  std::vector<float> labels = {1, 0, 0, 1, 1};
  std::vector<double> loss = {-2.0};
  backend.bce_with_logits(tensor_of(logits, {n, 1}), tensor_of(labels, {n}), scale, grad_scale,
                          tensor_of(dlogits, {n, 1}), tensor_of(loss, {1}));
  double want_loss = -2.0;
  std::vector<double> want_grad(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double p = 1 / (1 + std::exp(-double{logits[i]}));
    want_loss += scale * -(labels[i] * std::log(p) + (1 - labels[i]) * std::log(1 - p));
    want_grad[i] = (p - labels[i]) * scale * grad_scale;
  }
  EXPECT_NEAR(loss[0], want_loss, 1e-6);
  EXPECT_TRUE(all_near(doubles(dlogits), want_grad, 1e-6, 1e-6));
}

TEST(HostBackendTraining, LossSlotMustBeOneDouble) {
  HostBackend backend;
  std::vector<float> logits(4), dlogits(4), loss_f(1);
  std::vector<std::int32_t> labels = {0, 1};
  std::vector<double> two(2);
  const auto run = [&](const ops::Tensor& loss) {
    backend.softmax_cross_entropy(tensor_of(logits, {2, 2}), tensor_of(labels, {2}), 1.0f, 1.0f,
                                  tensor_of(dlogits, {2, 2}), loss);
  };
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { run(tensor_of(two, {2})); },
                                                   "loss is [2] fp64, expected [1]"));
  EXPECT_TRUE(throws_naming<std::invalid_argument>([&] { run(tensor_of(loss_f, {1})); },
                                                   "holds fp32, not fp64"));
}

/// PyTorch's SGD: g = grad + wd p; v = momentum v + g; p -= lr v (in double).
void naive_sgd(std::vector<double>& p, const std::vector<double>& g, std::vector<double>& v,
               const ops::SgdOptions& opt) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    v[i] = opt.momentum * v[i] + g[i] + opt.weight_decay * p[i];
    p[i] -= opt.lr * v[i];
  }
}

/// torch.optim.Adam's step `step` (in double).
void naive_adam(std::vector<double>& p, const std::vector<double>& grad, std::vector<double>& m,
                std::vector<double>& v, int step, const ops::AdamOptions& opt) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double g = grad[i] + opt.weight_decay * p[i];
    m[i] = opt.beta1 * m[i] + (1 - opt.beta1) * g;
    v[i] = opt.beta2 * v[i] + (1 - opt.beta2) * g * g;
    const double m_hat = m[i] / (1 - std::pow(double{opt.beta1}, step));
    const double v_hat = v[i] / (1 - std::pow(double{opt.beta2}, step));
    p[i] -= opt.lr * m_hat / (std::sqrt(v_hat) + opt.eps);
  }
}

/// A MasterUpdate that only unscales the gradients.
ops::MasterUpdate unscaling(float unscale) {
  ops::MasterUpdate update;
  update.unscale = unscale;
  return update;
}

/// A MasterUpdate that only writes the 16-bit copy.
ops::MasterUpdate copying_to(const ops::Tensor& copy) {
  ops::MasterUpdate update;
  update.copy = copy;
  return update;
}

std::vector<double> times(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

TEST(HostBackendTraining, SgdMomentumTwoStepsWithUnscale) {
  HostBackend backend;
  constexpr std::size_t n = 16;
  const ops::SgdOptions opt{.lr = 0.1f, .momentum = 0.9f, .weight_decay = 1e-2f};
  std::vector<float> params = uniform_floats(n, 3), velocity(n);
  std::vector<double> want_p = doubles(params), want_v(n);
  for (const unsigned seed : {4u, 5u}) {
    std::vector<float> grads = uniform_floats(n, seed);
    naive_sgd(want_p, times(doubles(grads), 0.25), want_v, opt);
    backend.sgd_momentum(tensor_of(params, {n}), tensor_of(grads, {n}), tensor_of(velocity, {n}),
                         opt, unscaling(0.25f));
  }
  EXPECT_TRUE(all_near(doubles(params), want_p, 1e-6, 1e-6));
  EXPECT_TRUE(all_near(doubles(velocity), want_v, 1e-6, 1e-6));
}

TEST(HostBackendTraining, AdamTwoStepsWithUnscale) {
  HostBackend backend;
  constexpr std::size_t n = 16;
  const ops::AdamOptions opt{.lr = 1e-2f, .weight_decay = 1e-3f};
  std::vector<float> params = uniform_floats(n, 6), m(n), v(n);
  std::vector<double> want_p = doubles(params), want_m(n), want_v(n);
  for (const int step : {1, 2}) {
    std::vector<float> grads = uniform_floats(n, 6 + unsigned(step));
    naive_adam(want_p, times(doubles(grads), 0.5), want_m, want_v, step, opt);
    backend.adam(tensor_of(params, {n}), tensor_of(grads, {n}), tensor_of(m, {n}),
                 tensor_of(v, {n}), step, opt, unscaling(0.5f));
  }
  EXPECT_TRUE(all_near(doubles(params), want_p, 1e-6, 1e-5));
  EXPECT_TRUE(all_near(doubles(m), want_m, 1e-7, 1e-5));
  EXPECT_TRUE(all_near(doubles(v), want_v, 1e-9, 1e-5));
}

/// The state an update may change, to compare bit for bit.
struct UpdateState {
  std::vector<float> params, grads, m, v;
  std::vector<Eigen::half> copy;
};

UpdateState make_state(std::size_t n) {
  return {uniform_floats(n, 9), uniform_floats(n, 10), uniform_floats(n, 11, 0.0f, 1.0f),
          uniform_floats(n, 12, 0.0f, 1.0f), std::vector<Eigen::half>(n, Eigen::half(7.0f))};
}

bool same_bits(const UpdateState& a, const UpdateState& b) {
  const auto same = [](const auto& x, const auto& y) {
    return std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  return same(a.params, b.params) && same(a.grads, b.grads) && same(a.m, b.m) && same(a.v, b.v) &&
         same(a.copy, b.copy);
}

TEST(HostBackendTraining, UpdatesAreSkippedWhenTheOverflowFlagIsSet) {
  HostBackend backend;
  constexpr std::size_t n = 8;
  UpdateState s = make_state(n);
  const UpdateState before = s;
  std::vector<std::int32_t> flag = {1};
  const ops::MasterUpdate update{
      .unscale = 0.5f, .found_nonfinite = tensor_of(flag, {1}), .copy = tensor_of(s.copy, {n})};
  backend.sgd_momentum(tensor_of(s.params, {n}), tensor_of(s.grads, {n}), tensor_of(s.m, {n}), {},
                       update);
  backend.adam(tensor_of(s.params, {n}), tensor_of(s.grads, {n}), tensor_of(s.m, {n}),
               tensor_of(s.v, {n}), 1, {}, update);
  EXPECT_TRUE(same_bits(s, before));
  flag[0] = 0;  // a clear flag lets the update run
  backend.sgd_momentum(tensor_of(s.params, {n}), tensor_of(s.grads, {n}), tensor_of(s.m, {n}), {},
                       update);
  EXPECT_FALSE(same_bits(s, before));
}

template <class T>
void expect_copy_written(bool use_adam) {
  HostBackend backend;
  constexpr std::size_t n = 8;
  std::vector<float> params = uniform_floats(n, 13), grads = uniform_floats(n, 14), m(n), v(n);
  std::vector<T> copy(n, T(7.0f));
  const ops::MasterUpdate update = copying_to(tensor_of(copy, {n}));
  if (use_adam)
    backend.adam(tensor_of(params, {n}), tensor_of(grads, {n}), tensor_of(m, {n}),
                 tensor_of(v, {n}), 1, {}, update);
  else
    backend.sgd_momentum(tensor_of(params, {n}), tensor_of(grads, {n}), tensor_of(m, {n}), {},
                         update);
  const std::vector<T> want = converted<T>(params);  // the updated parameters, rounded
  EXPECT_EQ(std::memcmp(copy.data(), want.data(), n * sizeof(T)), 0) << use_adam;
}

TEST(HostBackendTraining, UpdatesWriteTheSixteenBitCopyOfTheNewParameters) {
  expect_copy_written<Eigen::half>(false);
  expect_copy_written<Eigen::bfloat16>(false);
  expect_copy_written<Eigen::half>(true);
  expect_copy_written<Eigen::bfloat16>(true);
}

TEST(HostBackendTraining, GradientsOrCopyOfAnotherSizeAreRefusedBeforeAnythingChanges) {
  HostBackend backend;
  std::vector<float> params = uniform_floats(4, 15), grads = uniform_floats(4, 16), velocity(4);
  const std::vector<float> params_before = params, grads_before = grads;
  std::vector<Eigen::half> short_copy(3);
  ops::MasterUpdate update = copying_to(tensor_of(short_copy, {3}));
  update.unscale = 0.5f;
  EXPECT_TRUE(throws_naming<std::invalid_argument>(
      [&] {
        backend.sgd_momentum(tensor_of(params, {4}), tensor_of(grads, {4}),
                             tensor_of(velocity, {4}), {}, update);
      },
      "[4] fp32 and [3] fp16 differ in size"));
  EXPECT_EQ(params, params_before);
  EXPECT_EQ(grads, grads_before);
  EXPECT_EQ(velocity, std::vector<float>(4));
  const ops::Tensor three_grads(grads.data(), ops::DType::fp32, {3});
  EXPECT_THROW(backend.adam(tensor_of(params, {4}), three_grads, tensor_of(velocity, {4}),
                            tensor_of(velocity, {4}), 1, {}, unscaling(0.5f)),
               std::invalid_argument);
  EXPECT_EQ(grads, grads_before);  // not unscaled either
}

}  // namespace
}  // namespace scaletune::kernels
