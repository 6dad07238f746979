// cuBLAS gemm on a CudaContext against the host gemm (kernels/host/gemm.hpp) on the same
// row-major problem: all four transpose combinations, leading dimensions wider than the rows,
// alpha and beta not 1/0. The whole C array, padding included, must match (the padding must
// stay untouched). A leading dimension cuBLAS rejects surfaces as CudaError naming the call.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/cublas_gemm.hpp"
#include "kernels/host/gemm.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using device::CudaError;
using device::DeviceBuffer;
using device::testing::expect_all_close;
using device::testing::uniform_vector;
using device::testing::wait_for_device;
using CublasGemmErrors = device::testing::ContextTest;

/// (trans_a, trans_b)
class CublasGemm : public device::testing::ContextTest,
                   public ::testing::WithParamInterface<std::tuple<bool, bool>> {};

TEST_P(CublasGemm, MatchesHostGemm) {
  const auto [trans_a, trans_b] = GetParam();
  const int m = 37, n = 29, k = 53;
  const float alpha = 0.75f, beta = -0.5f;
  // Stored shapes: A is [m,k] ([k,m] when trans_a), B is [k,n] ([n,k] when trans_b), C [m,n];
  // every row stride is its row length plus a few unused elements.
  const int a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const int b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  const int lda = a_cols + 3, ldb = b_cols + 2, ldc = n + 5;
  const std::vector<float> a = uniform_vector(static_cast<std::size_t>(a_rows) * lda, 1);
  const std::vector<float> b = uniform_vector(static_cast<std::size_t>(b_rows) * ldb, 2);
  std::vector<float> c = uniform_vector(static_cast<std::size_t>(m) * ldc, 3);

  DeviceBuffer<float> a_d(a), b_d(b), c_d(c);
  wait_for_device();
  gemm(context(), trans_a, trans_b, m, n, k, alpha, a_d.data(), lda, b_d.data(), ldb, beta,
       c_d.data(), ldc);
  context().fence();
  kernels::gemm(trans_a, trans_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(),
                ldc);
  expect_all_close(c_d.to_host(), c, 1e-3, "C");
}

TEST_F(CublasGemmErrors, LeadingDimensionBelowRowLengthIsCudaError) {
  const int m = 4, n = 3, k = 5;
  DeviceBuffer<float> a_d(std::size_t{m * k}), b_d(std::size_t{k * n}), c_d(std::size_t{m * n});
  try {
    gemm(context(), false, false, m, n, k, 1.0f, a_d.data(), k - 1, b_d.data(), n, 0.0f, c_d.data(),
         n);
    FAIL() << "expected CudaError for lda = k - 1";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cublasSgemm"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Transposes, CublasGemm,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<bool, bool>>& param_info) {
                           return std::string(std::get<0>(param_info.param) ? "At" : "A") +
                                  (std::get<1>(param_info.param) ? "Bt" : "B");
                         });

}  // namespace
}  // namespace scaletune::kernels::cuda
