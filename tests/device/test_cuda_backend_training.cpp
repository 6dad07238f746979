// The CUDA backend's losses and optimizer updates against the host backend on the same inputs:
// softmax cross-entropy and BCE with logits (the fp64 loss accumulates over calls, grad_scale
// scales only the gradient, dlogits over the logits), one sample to thousands, one class to a
// thousand; SGD with momentum and Adam on fp32 master parameters with every part of a
// MasterUpdate (unscale, a 16-bit copy of the result, the skip flag set and clear).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tests/device/backend_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::BackendPairTest;
using testing::DType;
using testing::random_values;
using testing::Shape;
using testing::TwinTensor;
using testing::TypedBackendPairTest;

/// |cuda - host| <= 1e-5 max(1, |host|) for a loss sum (fp32 per sample on CUDA, the host's in
/// double, on the same inputs).
void expect_loss_close(double cuda_loss, double host_loss, const std::string& what) {
  EXPECT_NEAR(cuda_loss, host_loss, 1e-5 * std::max(1.0, std::abs(host_loss))) << what;
}

class CudaBackendLoss : public TypedBackendPairTest {};

TEST_P(CudaBackendLoss, SoftmaxCrossEntropyMatchesHostAndAccumulates) {
  for (const std::int64_t rows : {1, 37, 2000})
    for (const std::int64_t classes : {1, 10, 1001}) {
      const std::string what =
          "rows " + std::to_string(rows) + " classes " + std::to_string(classes);
      std::vector<std::int32_t> ids(static_cast<std::size_t>(rows));
      for (std::int64_t n = 0; n < rows; ++n)
        ids[std::size_t(n)] = std::int32_t((n * 7919) % classes);
      TwinTensor labels = int_twin<std::int32_t>({rows}, ids);
      TwinTensor logits = random_twin({rows, classes}, 141, dtype(), -8.0f, 8.0f);
      TwinTensor dlogits = filled_twin({rows, classes}, 7.0f, dtype());
      TwinTensor loss = loss_twin(0.25);  // added to
      const float scale = 1.0f / float(rows), grad_scale = 256.0f;
      host().softmax_cross_entropy(logits.host, labels.host, scale, grad_scale, dlogits.host,
                                   loss.host);
      cuda().softmax_cross_entropy(logits.cuda, labels.cuda, scale, grad_scale, dlogits.cuda,
                                   loss.cuda);
      expect_twin_close(dlogits, tol(), "cross-entropy dlogits, " + what);
      expect_loss_close(cuda_scalar(loss), host_scalar(loss), "cross-entropy loss, " + what);
      // A second call adds again; dlogits over the logits.
      host().softmax_cross_entropy(logits.host, labels.host, scale, 1.0f, logits.host, loss.host);
      cuda().softmax_cross_entropy(logits.cuda, labels.cuda, scale, 1.0f, logits.cuda, loss.cuda);
      expect_twin_close(logits, tol(), "cross-entropy dlogits in place, " + what);
      expect_loss_close(cuda_scalar(loss), host_scalar(loss), "cross-entropy loss twice, " + what);
    }
}

TEST_P(CudaBackendLoss, BceWithLogitsMatchesHostAndAccumulates) {
  for (const std::int64_t rows : {1, 37, 5000}) {
    std::vector<float> y(static_cast<std::size_t>(rows));
    for (std::size_t n = 0; n < y.size(); ++n) y[n] = float((n * 13) % 3 == 0);
    TwinTensor labels = twin({rows}, y);
    TwinTensor logits = random_twin({rows, 1}, 142, dtype(), -12.0f, 12.0f);
    TwinTensor dlogits = filled_twin({rows, 1}, 7.0f, dtype());
    TwinTensor loss = loss_twin(-1.5);
    const float scale = 0.5f, grad_scale = 128.0f;
    host().bce_with_logits(logits.host, labels.host, scale, grad_scale, dlogits.host, loss.host);
    cuda().bce_with_logits(logits.cuda, labels.cuda, scale, grad_scale, dlogits.cuda, loss.cuda);
    const std::string what = "rows " + std::to_string(rows);
    expect_twin_close(dlogits, tol(), "bce dlogits, " + what);
    expect_loss_close(cuda_scalar(loss), host_scalar(loss), "bce loss, " + what);
    host().bce_with_logits(logits.host, labels.host, scale, 1.0f, logits.host, loss.host);
    cuda().bce_with_logits(logits.cuda, labels.cuda, scale, 1.0f, logits.cuda, loss.cuda);
    expect_twin_close(logits, tol(), "bce dlogits in place, " + what);
    expect_loss_close(cuda_scalar(loss), host_scalar(loss), "bce loss twice, " + what);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaBackendLoss, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

/// What the MasterUpdate of an optimizer case holds.
struct UpdateCase {
  const char* name;
  float unscale;
  bool copy;
  DType copy_type;
  int flag;  ///< -1: no flag tensor; 0 or 1: its value
};

/// Master parameters, gradients and optimizer state on both backends, and a MasterUpdate per
/// backend built from the same settings.
class CudaBackendOptimizer : public BackendPairTest {
 protected:
  struct Updates {
    ops::MasterUpdate host, cuda;
    TwinTensor copy, flag;
  };

  Updates updates(const UpdateCase& u, std::int64_t n) {
    Updates out;
    out.host.unscale = out.cuda.unscale = u.unscale;
    if (u.copy) {
      out.copy = filled_twin({n}, 7.0f, u.copy_type, u.copy_type);
      out.host.copy = out.copy.host;
      out.cuda.copy = out.copy.cuda;
    }
    if (u.flag >= 0) {
      const std::int32_t value = u.flag;
      out.flag = int_twin<std::int32_t>({1}, std::span(&value, 1));
      out.host.found_nonfinite = out.flag.host;
      out.cuda.found_nonfinite = out.flag.cuda;
    }
    return out;
  }

  /// Compares params and state after an update; with the flag set, also that nothing moved.
  void expect_updated(const UpdateCase& u, const Updates& up, const std::vector<TwinTensor*>& state,
                      const std::vector<std::vector<float>>& before, double rel_tol,
                      const std::string& what) {
    for (std::size_t i = 0; i < state.size(); ++i) {
      expect_twin_close(*state[i], rel_tol, what + ", tensor " + std::to_string(i));
      if (u.flag == 1) {
        EXPECT_EQ(cuda_values(*state[i]), before[i]) << what << ": skipped";
      }
    }
    if (!u.copy) return;
    if (u.flag == 1) {
      EXPECT_EQ(cuda_values(up.copy), std::vector<float>(before[0].size(), 7.0f))
          << what << ": copy untouched when skipped";
      return;
    }
    // The copy holds the updated parameters rounded once (within one 16-bit rounding of the
    // host's: the fp32 values may differ in their last bits).
    expect_twin_close(up.copy, testing::tolerance(u.copy_type), what + ", 16-bit copy");
    std::vector<float> params = cuda_values(*state[0]);
    EXPECT_EQ(cuda_values(up.copy), testing::rounded(u.copy_type, params))
        << what << ": the copy is the parameters rounded";
  }
};

const UpdateCase kUpdateCases[] = {
    {"plain", 1.0f, false, DType::fp32, -1},
    {"unscale 1/128", 1.0f / 128.0f, false, DType::fp32, 0},
    {"bf16 copy", 1.0f, true, DType::bf16, -1},
    {"fp16 copy, unscale", 1.0f / 64.0f, true, DType::fp16, 0},
    {"skipped", 1.0f / 64.0f, true, DType::fp16, 1},
};

TEST_F(CudaBackendOptimizer, SgdMomentumMatchesHostWithEveryMasterUpdate) {
  const ops::SgdOptions opt{.lr = 0.1f, .momentum = 0.9f, .weight_decay = 5e-4f};
  for (const UpdateCase& u : kUpdateCases)
    for (const std::int64_t n : {1, 1001, 100'003}) {
      const std::string what = std::string("sgd ") + u.name + ", n " + std::to_string(n);
      TwinTensor params = random_twin({n}, 151);
      TwinTensor grads = random_twin({n}, 152, DType::fp32, -1.0f / u.unscale, 1.0f / u.unscale);
      TwinTensor velocity = random_twin({n}, 153);
      Updates up = updates(u, n);
      const std::vector<std::vector<float>> before = {cuda_values(params), cuda_values(velocity)};
      host().sgd_momentum(params.host, grads.host, velocity.host, opt, up.host);
      cuda().sgd_momentum(params.cuda, grads.cuda, velocity.cuda, opt, up.cuda);
      expect_updated(u, up, {&params, &velocity}, before, 1e-6, what);
    }
}

TEST_F(CudaBackendOptimizer, AdamMatchesHostWithEveryMasterUpdate) {
  const ops::AdamOptions opt{
      .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.01f};
  for (const int step : {1, 3})
    for (const UpdateCase& u : kUpdateCases)
      for (const std::int64_t n : {1, 1001, 100'003}) {
        const std::string what = std::string("adam ") + u.name + ", step " + std::to_string(step) +
                                 ", n " + std::to_string(n);
        TwinTensor params = random_twin({n}, 161);
        TwinTensor grads = random_twin({n}, 162, DType::fp32, -1.0f / u.unscale, 1.0f / u.unscale);
        TwinTensor m = random_twin({n}, 163, DType::fp32, -0.1f, 0.1f);
        TwinTensor v = random_twin({n}, 164, DType::fp32, 0.0f, 0.01f);
        Updates up = updates(u, n);
        const std::vector<std::vector<float>> before = {cuda_values(params), cuda_values(m),
                                                        cuda_values(v)};
        host().adam(params.host, grads.host, m.host, v.host, step, opt, up.host);
        cuda().adam(params.cuda, grads.cuda, m.cuda, v.cuda, step, opt, up.cuda);
        expect_updated(u, up, {&params, &m, &v}, before, 1e-5, what);
      }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
