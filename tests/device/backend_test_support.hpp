#pragma once
// Helpers of the CUDA backend's tests (test_cuda_backend_*.cpp): a fixture holding the host
// backend and a CUDA backend on device 0, tensors made on both from the same host values, and
// the comparison of a CUDA result with the host's at the tolerance of its element type.
//
// The host computes in fp32 only, so a 16-bit op on CUDA is checked against the host's fp32 op
// on the same inputs rounded to 16 bits first (twin() rounds them): the difference is then the
// CUDA op's own rounding (its 16-bit output, intermediate 16-bit tensors) and fp32 reassociation.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/ops/backend.hpp"
#include "kernels/ops/transfer.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda::testing {

using ops::DType;
using Shape = std::vector<std::int64_t>;

/// One tensor on both backends, the same shape: `host` in host memory, `cuda` in device memory.
struct TwinTensor {
  ops::Buffer host_memory;
  ops::Buffer cuda_memory;
  ops::Tensor host;
  ops::Tensor cuda;
};

/// Uniform values in [lo, hi) from mt19937(seed).
inline std::vector<float> random_values(std::size_t n, unsigned seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

/// Product of the extents.
inline std::size_t numel(const Shape& shape) {
  std::size_t n = 1;
  for (const std::int64_t e : shape) n *= static_cast<std::size_t>(e);
  return n;
}

/// Expects got[i] == want[i] within rel_tol * max(1, |want[i]|) (a relative tolerance with an
/// absolute floor of rel_tol) for every i; reports the count of mismatches, the first and the
/// largest.
inline void expect_close(std::span<const float> got, std::span<const float> want, double rel_tol,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t mismatches = 0, first = 0, worst = 0;
  double worst_excess = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double allowed = rel_tol * std::max(1.0, std::abs(static_cast<double>(want[i])));
    const double diff = std::abs(static_cast<double>(got[i]) - want[i]);
    if (diff <= allowed) continue;  // NaN fails
    if (mismatches++ == 0) first = i;
    if (!(diff / allowed <= worst_excess)) {
      worst_excess = diff / allowed;
      worst = i;
    }
  }
  if (mismatches == 0) return;
  ADD_FAILURE() << what << ": " << mismatches << " of " << got.size()
                << " elements differ beyond rel tol " << rel_tol << "; first [" << first
                << "]: got " << got[first] << ", expected " << want[first] << "; worst [" << worst
                << "]: got " << got[worst] << ", expected " << want[worst];
}

/// A HostBackend and a CudaBackend on device 0 (a ContextTest: skips without a device).
class BackendPairTest : public device::testing::ContextTest {
 protected:
  void SetUp() override {
    device::testing::ContextTest::SetUp();
    if (!IsSkipped()) m_cuda.emplace(context());
  }
  void TearDown() override { m_cuda.reset(); }

  HostBackend& host() { return m_host; }
  /// The backend under test (a CudaBackend on context()).
  ops::Backend& cuda() { return *m_cuda; }

  /// `values` on both backends: on CUDA as `cuda_dtype`, on the host as `host_dtype` (fp32 by
  /// default: the host reference computes in fp32) holding the values rounded to cuda_dtype.
  TwinTensor twin(const Shape& shape, std::span<const float> values, DType cuda_dtype = DType::fp32,
                  DType host_dtype = DType::fp32) {
    TwinTensor t = empty_twin(shape, cuda_dtype, host_dtype);
    const std::vector<float> seen = rounded(cuda_dtype, values);
    ops::upload_floats(m_host, t.host, seen);
    ops::upload_floats(cuda(), t.cuda, values);
    return t;
  }
  /// Uniform values in [lo, hi) from `seed` on both backends (as twin()).
  TwinTensor random_twin(const Shape& shape, unsigned seed, DType cuda_dtype = DType::fp32,
                         float lo = -1.0f, float hi = 1.0f, DType host_dtype = DType::fp32) {
    return twin(shape, random_values(numel(shape), seed, lo, hi), cuda_dtype, host_dtype);
  }
  /// Every element `value` on both (an output that must be overwritten, or a zero to add to).
  TwinTensor filled_twin(const Shape& shape, float value, DType cuda_dtype = DType::fp32,
                         DType host_dtype = DType::fp32) {
    return twin(shape, std::vector<float>(numel(shape), value), cuda_dtype, host_dtype);
  }
  /// Integers (labels int32, row ids and offsets int64) on both backends, byte for byte.
  template <class T>
  TwinTensor int_twin(const Shape& shape, std::span<const T> values) {
    const DType dtype = sizeof(T) == 4 ? DType::int32 : DType::int64;
    TwinTensor t = empty_twin(shape, dtype, dtype);
    m_host.upload(t.host, std::as_bytes(values));
    cuda().upload(t.cuda, std::as_bytes(values));
    return t;
  }
  /// A tensor on both backends without values (zero-filled by allocate()).
  TwinTensor empty_twin(const Shape& shape, DType cuda_dtype, DType host_dtype) {
    TwinTensor t;
    const std::size_t n = numel(shape);
    t.host_memory = m_host.allocate(n * core::dtype_bytes(host_dtype), "host twin");
    t.cuda_memory = cuda().allocate(n * core::dtype_bytes(cuda_dtype), "cuda twin");
    t.host = ops::Tensor(t.host_memory.data(), host_dtype, std::span<const std::int64_t>(shape));
    t.cuda = ops::Tensor(t.cuda_memory.data(), cuda_dtype, std::span<const std::int64_t>(shape));
    return t;
  }

  /// The host tensor's elements as floats.
  std::vector<float> host_values(const TwinTensor& t) {
    return ops::download_floats(m_host, t.host);
  }
  /// The CUDA tensor's elements as floats (waits for the queued work).
  std::vector<float> cuda_values(const TwinTensor& t) {
    return ops::download_floats(cuda(), t.cuda);
  }

  /// Expects the CUDA tensor to hold the host tensor's values within rel_tol (expect_close).
  void expect_twin_close(const TwinTensor& t, double rel_tol, const std::string& what) {
    expect_close(cuda_values(t), host_values(t), rel_tol, what);
  }
  /// As above at the tolerance of the CUDA tensor's element type (testing::tolerance).
  void expect_twin_close(const TwinTensor& t, const std::string& what) {
    expect_twin_close(t, tolerance(t.cuda.dtype()), what);
  }
  /// Expects the CUDA tensor's values to equal the host's exactly (pure copies, exact math).
  void expect_twin_equal(const TwinTensor& t, const std::string& what) {
    const std::vector<float> got = cuda_values(t), want = host_values(t);
    ASSERT_EQ(got.size(), want.size()) << what;
    std::size_t mismatches = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]))) continue;
      if (mismatches++ == 0) first = i;
    }
    EXPECT_EQ(mismatches, 0u) << what << ": first [" << first << "]: got " << got[first]
                              << ", expected " << want[first];
  }
  /// The int32 elements of the CUDA tensor.
  std::vector<std::int32_t> cuda_ints(const TwinTensor& t) {
    return ops::download_ints(cuda(), t.cuda);
  }
  /// The fp64 [1] value of a loss tensor on each backend.
  double host_scalar(const TwinTensor& t) { return ops::download_scalar(m_host, t.host); }
  double cuda_scalar(const TwinTensor& t) { return ops::download_scalar(cuda(), t.cuda); }
  /// A loss tensor fp64 [1] holding `value` on both backends.
  TwinTensor loss_twin(double value) {
    TwinTensor t = empty_twin({1}, DType::fp64, DType::fp64);
    const std::span<const double> one(&value, 1);
    m_host.upload(t.host, std::as_bytes(one));
    cuda().upload(t.cuda, std::as_bytes(one));
    return t;
  }

 private:
  HostBackend m_host;
  std::optional<CudaBackend> m_cuda;
};

/// A BackendPairTest parameterised by an activation element type (fp32, fp16, bf16); SetUp skips
/// a type the device cannot compute in.
class TypedBackendPairTest : public BackendPairTest, public ::testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    BackendPairTest::SetUp();
    if (IsSkipped()) return;
    if (!cuda().computes_in(GetParam()))
      GTEST_SKIP() << "the device does not compute in " << core::dtype_key(GetParam());
  }
  DType dtype() const { return GetParam(); }
  /// Tolerance of an op's output in dtype() whose result went through `roundings` 16-bit
  /// intermediates (an attention's scores and probabilities): tolerance(dtype()) times it.
  double tol(int roundings = 1) const { return tolerance(dtype()) * roundings; }
};

}  // namespace scaletune::kernels::cuda::testing
