#pragma once
// Layer normalisation over the columns of [rows, cols] device activations (fp32, fp16 or bf16)
// with fp32 gamma, beta, row statistics and parameter gradients, with the semantics of the
// host kernels/host/layer_norm.hpp. One block per row (cub::BlockReduce); rows of any length
// (2^20 columns and more: each thread strides the row). Asynchronous on `stream`.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// y[n, f] = (x[n, f] - mean[n]) * rstd[n] * gamma[f] + beta[f] with mean[n] and the biased
/// variance var[n] of row n (two passes) and rstd[n] = 1 / sqrt(var[n] + eps) (Ba et al. 2016,
/// eq. 4; torch.nn.LayerNorm), all in fp32; writes mean and rstd for layer_norm_backward.
/// x, y [rows, cols] of element type `type`; gamma, beta [cols], mean, rstd [rows] fp32; all
/// device, row-major, contiguous; y may alias x. Throws std::invalid_argument when rows < 0,
/// cols < 1, eps is not > 0, a pointer is null (rows > 0) or `type` is not fp32, fp16 or bf16;
/// CudaError when the launch fails.
void layer_norm_forward(cudaStream_t stream, core::DType type, std::int64_t rows, std::int64_t cols,
                        float eps, const void* x, const float* gamma, const float* beta, void* y,
                        float* mean, float* rstd);

/// Gradients of layer_norm_forward, all overwritten, with xhat = (x - mean) * rstd and
/// g = dy * gamma: dx[n, f] = rstd[n] * (g - mean_f g - xhat * mean_f (g xhat));
/// dgamma[f] = sum_n dy xhat; dbeta[f] = sum_n dy (the host layer_norm_backward, in fp32;
/// dgamma and dbeta of this call only, in a fixed summation order). mean and rstd are the
/// forward's. x, dy, dx [rows, cols] of element type `type`; gamma, dgamma, dbeta [cols], mean,
/// rstd [rows] fp32; all device, row-major, contiguous; dx may alias dy (dgamma and dbeta are
/// formed first) but not x. rows == 0 zeroes dgamma and dbeta. Throws std::invalid_argument
/// when rows < 0, cols < 1, a pointer is null, dx aliases x or `type` is not fp32, fp16 or
/// bf16; CudaError when a launch fails.
void layer_norm_backward(cudaStream_t stream, core::DType type, std::int64_t rows,
                         std::int64_t cols, const void* x, const float* gamma, const void* dy,
                         const float* mean, const float* rstd, void* dx, float* dgamma,
                         float* dbeta);

}  // namespace scaletune::kernels::cuda
