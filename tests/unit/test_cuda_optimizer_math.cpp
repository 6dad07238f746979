// The CUDA optimizer kernels' per-element updates (kernels/cuda/detail/optimizer_math.hpp)
// against the host sgd_momentum_step and adam_step over several steps on the same fp32 buffers:
// bit for bit (same operations in the same order, each rounded once), also with an unscale
// factor, which must equal the host step on the gradients multiplied by it first.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernels/cuda/detail/optimizer_math.hpp"
#include "kernels/host/adam.hpp"
#include "kernels/host/optimizer.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_values;
using test::same_bits;

constexpr std::size_t kCount = 1031;
constexpr int kSteps = 5;

Vector host_vector(const std::vector<float>& v) {
  const Vector out("v", v.size());
  std::copy(v.begin(), v.end(), out.data());
  return out;
}

/// The (loss-scaled) gradients of step `step`, in [-2, 2): the kernels get them and the unscale
/// factor, the host op them times unscale (rounded once, as the kernels' first product).
std::vector<float> grads_of(int step) {
  return test::uniform_values(kCount, 100 + static_cast<unsigned>(step), -2.0f, 2.0f);
}

class CudaOptimizerMath : public ::testing::TestWithParam<float> {};

TEST_P(CudaOptimizerMath, SgdMomentumMatchesHostBitForBit) {
  const float unscale = GetParam();
  const SgdOptions opt{0.05f, 0.9f, 1e-4f};
  std::vector<float> params = test::uniform_values(kCount, 1, -1.0f, 1.0f);
  std::vector<float> velocity(kCount, 0.0f);
  const Vector host_params = host_vector(params), host_velocity = host_vector(velocity);
  for (int step = 1; step <= kSteps; ++step) {
    const std::vector<float> scaled = grads_of(step);
    std::vector<float> unscaled(kCount);
    for (std::size_t i = 0; i < kCount; ++i) unscaled[i] = scaled[i] * unscale;
    sgd_momentum_step(host_params, host_vector(unscaled), host_velocity, opt);
    for (std::size_t i = 0; i < kCount; ++i)
      detail::sgd_momentum_update(params[i], velocity[i], scaled[i], unscale, opt.lr, opt.momentum,
                                  opt.weight_decay);
    ASSERT_TRUE(same_bits<float>(params, host_values(host_params))) << "step " << step;
    ASSERT_TRUE(same_bits<float>(velocity, host_values(host_velocity))) << "step " << step;
  }
}

TEST_P(CudaOptimizerMath, AdamMatchesHostBitForBit) {
  const float unscale = GetParam();
  const AdamOptions opt{1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f};
  std::vector<float> params = test::uniform_values(kCount, 2, -1.0f, 1.0f);
  std::vector<float> m(kCount, 0.0f), v(kCount, 0.0f);
  const Vector host_params = host_vector(params), host_m = host_vector(m), host_v = host_vector(v);
  for (int step = 1; step <= kSteps; ++step) {
    const std::vector<float> scaled = grads_of(step);
    std::vector<float> unscaled(kCount);
    for (std::size_t i = 0; i < kCount; ++i) unscaled[i] = scaled[i] * unscale;
    adam_step(host_params, host_vector(unscaled), host_m, host_v, step, opt);
    const detail::AdamConstants constants{
        opt.beta1, opt.beta2, opt.eps, opt.weight_decay,
        detail::adam_corrections(opt.lr, opt.beta1, opt.beta2, step)};
    for (std::size_t i = 0; i < kCount; ++i)
      detail::adam_update(params[i], m[i], v[i], scaled[i], unscale, constants);
    ASSERT_TRUE(same_bits<float>(params, host_values(host_params))) << "step " << step;
    ASSERT_TRUE(same_bits<float>(m, host_values(host_m))) << "step " << step;
    ASSERT_TRUE(same_bits<float>(v, host_values(host_v))) << "step " << step;
  }
}

// 1: no loss scaling; 1/1024: a power of two (exact); 1/3: a rounded factor.
INSTANTIATE_TEST_SUITE_P(Unscale, CudaOptimizerMath,
                         ::testing::Values(1.0f, 1.0f / 1024.0f, 1.0f / 3.0f));

}  // namespace
}  // namespace scaletune::kernels::cuda
