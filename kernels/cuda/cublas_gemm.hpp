#pragma once
// Single-precision GEMM on row-major device matrices through cuBLAS, with the semantics of the
// host kernels/host/gemm.hpp (same argument list, plus the handle).

#include <cublas_v2.h>

#include "harness/device/detail/unique_handle.hpp"

namespace scaletune::kernels::cuda {

/// Owns one cuBLAS handle (cublasCreate / cublasDestroy) on the device current at construction.
/// Math mode CUBLAS_DEFAULT_MATH: fp32 FMA, no TF32 tensor-core rounding, so results match the
/// host BLAS to fp32 accuracy. Work runs on the default stream. Move-only.
class CublasHandle {
 public:
  /// Throws CudaError "no CUDA device" without a device, CudaError if cublasCreate fails.
  CublasHandle();

  /// The raw handle, for cuBLAS calls (nullptr after a move).
  cublasHandle_t get() const noexcept { return m_handle.get(); }

 private:
  device::detail::UniqueHandle<cublasHandle_t, &cublasDestroy> m_handle;
};

/// C[m,n] = alpha * op(A) * op(B) + beta * C on device pointers, all row-major, where op(A) is
/// [m,k] (A is [k,m] when trans_a) and op(B) is [k,n] (B is [n,k] when trans_b); lda, ldb, ldc
/// are the row strides in elements. As the host gemm, calls the column-major cublasSgemm on the
/// transposed problem C^T = op(B)^T op(A)^T. Asynchronous on the handle's stream. Throws
/// CudaError when cuBLAS rejects the arguments (e.g. a leading dimension below the row length).
void gemm(CublasHandle& handle, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
          const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

}  // namespace scaletune::kernels::cuda
