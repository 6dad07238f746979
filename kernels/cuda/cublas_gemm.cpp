#include "cublas_gemm.hpp"

#include "harness/device/cuda_error.hpp"

namespace scaletune::kernels::cuda {

void gemm(device::CudaContext& context, bool trans_a, bool trans_b, int m, int n, int k,
          float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c,
          int ldc) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
  const cublasOperation_t tb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  SCALETUNE_CUBLAS_CHECK(
      cublasSgemm(context.cublas(), tb, ta, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc));
}

}  // namespace scaletune::kernels::cuda
