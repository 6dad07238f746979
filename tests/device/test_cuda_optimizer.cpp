// SGD with momentum and Adam (kernels/cuda/optimizer.hpp) against the host sgd_momentum_step and
// adam_step over several steps on the same fp32 buffers, bit for bit (the same operations in
// the same order, each rounded once); unscale against the host on the pre-multiplied
// gradients; a set found_nonfinite flag leaves everything unchanged; the 16-bit parameter copy
// is the updated fp32 parameters rounded to nearest even. Sizes: one element, odd, more than a
// block. Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/optimizer.hpp"
#include "kernels/host/adam.hpp"
#include "kernels/host/optimizer.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;
using testing::uniform_vector;

constexpr std::size_t kCounts[] = {1, 1000, 70001};
constexpr int kSteps = 3;
constexpr float kUnscale = 1.0f / 3.0f;  // a factor that rounds

Vector host_vector(const std::vector<float>& v) {
  const Vector out("v", v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out(i) = v[i];
  return out;
}

std::vector<float> values(const Vector& v) {
  return std::vector<float>(v.data(), v.data() + v.size());
}

/// The (loss-scaled) gradients of a step, and what the host sees: them times kUnscale.
std::vector<float> grads_of(std::size_t n, int step) {
  return uniform_vector(n, 100 + static_cast<unsigned>(step));
}
std::vector<float> unscaled(const std::vector<float>& g) {
  std::vector<float> out(g);
  for (float& v : out) v *= kUnscale;
  return out;
}

class CudaOptimizer : public testing::DeviceTest,
                      public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaOptimizer, SgdMomentumMatchesHostBitForBitAndCopies) {
  const core::DType copy_type = GetParam();
  const testing::TestStream stream;
  const SgdOptions opt{0.05f, 0.9f, 1e-4f};
  for (const std::size_t n : kCounts) {
    const std::vector<float> p0 = uniform_vector(n, 1);
    const Vector hp = host_vector(p0), hv = host_vector(std::vector<float>(n, 0.0f));
    DeviceBuffer<float> p{std::span<const float>(p0)},
        v{std::span<const float>(std::vector<float>(n, 0.0f))};
    DeviceActivations copy(copy_type, n, 7.0f);
    const MixedPrecisionStep mixed{kUnscale, nullptr, copy.data(), copy_type};
    for (int step = 1; step <= kSteps; ++step) {
      const std::vector<float> g = grads_of(n, step);
      kernels::sgd_momentum_step(hp, host_vector(unscaled(g)), hv, opt);
      const DeviceBuffer<float> g_d{std::span<const float>(g)};
      sgd_momentum_step(stream.get(), static_cast<std::int64_t>(n),
                        ops::SgdOptions{opt.lr, opt.momentum, opt.weight_decay}, mixed, p.data(),
                        g_d.data(), v.data());
      stream.sync();
    }
    EXPECT_EQ(p.to_host(), values(hp)) << "params, n = " << n;
    EXPECT_EQ(v.to_host(), values(hv)) << "velocity, n = " << n;
    EXPECT_EQ(copy.bits(), testing::host_bits(copy_type, values(hp))) << "copy, n = " << n;
  }
}

TEST_P(CudaOptimizer, AdamMatchesHostBitForBitAndCopies) {
  const core::DType copy_type = GetParam();
  const testing::TestStream stream;
  const AdamOptions opt{1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f};
  const ops::AdamOptions settings{opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay};
  for (const std::size_t n : kCounts) {
    const std::vector<float> p0 = uniform_vector(n, 2), zeros(n, 0.0f);
    const Vector hp = host_vector(p0), hm = host_vector(zeros), hv = host_vector(zeros);
    DeviceBuffer<float> p{std::span<const float>(p0)}, m{std::span<const float>(zeros)},
        v{std::span<const float>(zeros)};
    DeviceActivations copy(copy_type, n, 7.0f);
    const MixedPrecisionStep mixed{kUnscale, nullptr, copy.data(), copy_type};
    for (int step = 1; step <= kSteps; ++step) {
      const std::vector<float> g = grads_of(n, step);
      kernels::adam_step(hp, host_vector(unscaled(g)), hm, hv, step, opt);
      const DeviceBuffer<float> g_d{std::span<const float>(g)};
      adam_step(stream.get(), static_cast<std::int64_t>(n), step, settings, mixed, p.data(),
                g_d.data(), m.data(), v.data());
      stream.sync();
    }
    EXPECT_EQ(p.to_host(), values(hp)) << "params, n = " << n;
    EXPECT_EQ(m.to_host(), values(hm)) << "m, n = " << n;
    EXPECT_EQ(v.to_host(), values(hv)) << "v, n = " << n;
    EXPECT_EQ(copy.bits(), testing::host_bits(copy_type, values(hp))) << "copy, n = " << n;
  }
}

TEST_P(CudaOptimizer, FoundNonfiniteSkipsTheWholeUpdate) {
  const core::DType copy_type = GetParam();
  const testing::TestStream stream;
  constexpr std::size_t n = 1000;
  const std::vector<float> p0 = uniform_vector(n, 3), s0 = uniform_vector(n, 4), g = grads_of(n, 1);
  DeviceBuffer<float> p{std::span<const float>(p0)}, a{std::span<const float>(s0)},
      b{std::span<const float>(s0)};
  const DeviceBuffer<float> g_d{std::span<const float>(g)};
  const DeviceBuffer<int> found{std::span<const int>(std::vector<int>{1})};
  DeviceActivations copy(copy_type, n, 7.0f);
  const MixedPrecisionStep mixed{1.0f, found.data(), copy.data(), copy_type};
  sgd_momentum_step(stream.get(), n, ops::SgdOptions{0.1f, 0.9f, 0.0f}, mixed, p.data(), g_d.data(),
                    a.data());
  adam_step(stream.get(), n, 1, ops::AdamOptions{1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f}, mixed, p.data(),
            g_d.data(), a.data(), b.data());
  stream.sync();
  EXPECT_EQ(p.to_host(), p0);
  EXPECT_EQ(a.to_host(), s0);
  EXPECT_EQ(b.to_host(), s0);
  EXPECT_EQ(copy.to_host(), std::vector<float>(n, 7.0f));
}

INSTANTIATE_TEST_SUITE_P(CopyTypes, CudaOptimizer, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaOptimizerArguments, AreCheckedBeforeTouchingTheDevice) {
  float f = 0.0f;
  const ops::AdamOptions ok{1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f};
  try {
    adam_step(nullptr, 4, 0, ok, MixedPrecisionStep{}, &f, &f, &f, &f);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "adam_step: step is 0, expected >= 1 (steps count from 1)");
  }
  EXPECT_THROW(adam_step(nullptr, 4, 1, ops::AdamOptions{1e-3f, 1.0f, 0.999f, 1e-8f, 0.0f},
                         MixedPrecisionStep{}, &f, &f, &f, &f),
               std::invalid_argument);
  MixedPrecisionStep bad_copy;
  bad_copy.param_copy_type = core::DType::int32;
  EXPECT_THROW(sgd_momentum_step(nullptr, 4, ops::SgdOptions{0.1f, 0.9f, 0.0f}, bad_copy, &f, &f, &f),
               std::invalid_argument);
  EXPECT_THROW(sgd_momentum_step(nullptr, 4, ops::SgdOptions{0.1f, 0.9f, 0.0f}, MixedPrecisionStep{},
                                 &f, nullptr, &f),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
