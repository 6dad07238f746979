#pragma once
// Single-precision GEMM on row-major device matrices through cuBLAS, with the semantics of the
// host kernels/host/gemm.hpp (same argument list, plus the rank's CUDA context).

#include "harness/device/cuda_context.hpp"

namespace scaletune::kernels::cuda {

/// C[m,n] = alpha * op(A) * op(B) + beta * C on device pointers, all row-major, where op(A) is
/// [m,k] (A is [k,m] when trans_a) and op(B) is [k,n] (B is [n,k] when trans_b); lda, ldb, ldc
/// are the row strides in elements. As the host gemm, calls the column-major cublasSgemm on the
/// transposed problem C^T = op(B)^T op(A)^T, with the context's cuBLAS handle (CUBLAS_DEFAULT_MATH:
/// fp32 FMA, no TF32 rounding, so results match the host BLAS to fp32 accuracy). Asynchronous
/// on context.compute_stream(). Throws device::CudaError when cuBLAS rejects the arguments
/// (e.g. a leading dimension below the row length).
void gemm(device::CudaContext& context, bool trans_a, bool trans_b, int m, int n, int k,
          float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c,
          int ldc);

}  // namespace scaletune::kernels::cuda
