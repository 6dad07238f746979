#pragma once
// Helpers shared by the device tests: fixtures that skip without a CUDA device (one with the
// rank's CudaContext), seeded random data and an element-wise comparison with a relative
// tolerance.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"

namespace scaletune::device::testing {

/// Base fixture of tests that need a device: skips each test when device_count() == 0.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

/// A DeviceTest with a CudaContext on device 0, made for each test.
class ContextTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (!IsSkipped()) m_context.emplace(0);
  }
  CudaContext& context() { return *m_context; }

 private:
  std::optional<CudaContext> m_context;
};

/// cudaDeviceSynchronize: after DeviceBuffer uploads (cudaMemcpy on the legacy default stream
/// may return before the data has landed) and before work on a non-blocking stream reads them.
inline void wait_for_device() {
  SCALETUNE_CUDA_CHECK(cudaDeviceSynchronize());
}

/// Fills `out` with values uniform in [-1, 1) from a fixed seed.
inline void fill_uniform(std::span<float> out, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::generate(out.begin(), out.end(), [&] { return uniform(rng); });
}

/// `n` values uniform in [-1, 1) from a fixed seed.
inline std::vector<float> uniform_vector(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  fill_uniform(v, seed);
  return v;
}

/// Expects got[i] == want[i] within rel_tol * max(1, |want[i]|) for every i (a relative
/// tolerance that turns absolute near zero, where cancellation leaves no relative accuracy);
/// on failure reports how many elements differ and the first of them.
inline void expect_all_close(std::span<const float> got, std::span<const float> want,
                             double rel_tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double allowed = rel_tol * std::max(1.0, std::abs(static_cast<double>(want[i])));
    if (std::abs(static_cast<double>(got[i]) - want[i]) <= allowed) continue;  // NaN fails
    if (mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return;
  ADD_FAILURE() << what << ": " << mismatches << " of " << got.size() << " elements differ; first ["
                << first << "]: got " << got[first] << ", expected " << want[first] << " (rel tol "
                << rel_tol << ")";
}

}  // namespace scaletune::device::testing
