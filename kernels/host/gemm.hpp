#pragma once
// Single-precision GEMM on row-major matrices through the BLAS the build links (BLAS::BLAS).

namespace scaletune::kernels {

/// C[m,n] = alpha * op(A) * op(B) + beta * C, all row-major, where op(A) is [m,k]
/// (A is [k,m] when trans_a) and op(B) is [k,n] (B is [n,k] when trans_b). lda, ldb, ldc are
/// the row strides (elements). Calls the Fortran sgemm_ on the transposed problem
/// (C^T = op(B)^T op(A)^T), so any reference-BLAS-compatible library works.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc);

}  // namespace scaletune::kernels
