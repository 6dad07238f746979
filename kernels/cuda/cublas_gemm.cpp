#include "cublas_gemm.hpp"

#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"

namespace scaletune::kernels::cuda {

CublasHandle::CublasHandle() {
  device::require_device("CublasHandle");
  cublasHandle_t raw = nullptr;
  SCALETUNE_CUBLAS_CHECK(cublasCreate(&raw));
  m_handle.reset(raw);
  SCALETUNE_CUBLAS_CHECK(cublasSetMathMode(raw, CUBLAS_DEFAULT_MATH));
}

void gemm(CublasHandle& handle, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
          const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
  const cublasOperation_t tb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  SCALETUNE_CUBLAS_CHECK(
      cublasSgemm(handle.get(), tb, ta, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc));
}

}  // namespace scaletune::kernels::cuda
