#pragma once
// Training-mode batch normalisation on the device, split around the all-reduces of
// synchronised batch norm (PyTorch SyncBatchNorm), with the formulas of
// kernels/host/batch_norm.hpp BatchNorm2d (the reference; Ioffe & Szegedy 2015, Algorithm 1,
// biased variance; the backward from the chain rule). One step is:
//   forward:  batch_norm_forward_sums -> caller all-reduces sums [2C] (sum over the data-parallel
//             group; skip for local batch norm) -> batch_norm_statistics (global element count
//             per channel M) -> batch_norm_forward_normalize
//   backward: batch_norm_backward_sums (also writes this rank's dgamma, dbeta) -> caller
//             all-reduces sums [2C] -> batch_norm_backward_dx
// x, y, dy and dx are [N, C, H, W] activations in shape.layout (NCHW or NHWC, every kernel takes
// both) and one element type (core::DType fp32, fp16 or bf16: read exactly, math in fp32,
// written rounded to nearest even); gamma, beta, mean, invstd, dgamma, dbeta [C] and sums [2C]
// are fp32. Per-channel sums are fp32, reduced in a fixed order that depends on the sizes only
// (deterministic); the host's are double. The variance is E[x^2] - mean^2 as on the host, so in
// fp32 it loses about log2(mean^2 / var) bits when a channel's mean is large against its spread
// (fine for normalised conv outputs; the relative error of var grows as mean^2 / var * 2^-24).
// Contiguous device arrays; work is queued on `stream`, nothing synchronises. Every launcher throws
// std::invalid_argument on an extent < 1, a null pointer, an unsupported dtype, a workspace too
// small or a grid too large.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/activation_shape.hpp"

namespace scaletune::kernels::cuda {

/// Bytes of device workspace the kernels below take for `shape` (one workspace may serve them
/// all; 256-byte alignment is enough): per-block partial sums of the reductions and the
/// backward's per-channel coefficients.
std::size_t batch_norm_workspace_bytes(const ActivationShape& shape);

/// sums[c] = sum of x over this rank's (N, H, W) of channel c, sums[C + c] = sum of x^2
/// (overwritten), fp32. NCHW: blocks of 256 threads over (channel, slice of the channel's
/// N * H * W values), cub::BlockReduce, then the slices' partials reduced per channel in slice
/// order; NHWC: blocks of 32 channels x 8 rows, coalesced over channels, the 8 rows added in
/// order, then the same second pass.
void batch_norm_forward_sums(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                             const void* x, void* workspace, std::size_t workspace_bytes,
                             float* sums);

/// mean[c] = sums[c] / count and invstd[c] = 1 / sqrt(max(sums[C + c] / count - mean^2, 0) +
/// eps), in double from the fp32 sums, stored as fp32 (overwritten). sums [2C] as
/// batch_norm_forward_sums wrote them, all-reduced for synchronised batch norm; count = the
/// elements per channel those sums cover (N * H * W summed over the group's ranks). Throws
/// std::invalid_argument on channels < 1, eps <= 0 or a null pointer, std::domain_error when
/// count < 1 (the host's error for an empty batch).
void batch_norm_statistics(cudaStream_t stream, std::int64_t channels, const float* sums,
                           std::int64_t count, float eps, float* mean, float* invstd);

/// y = (x - mean[c]) * (gamma[c] * invstd[c]) + beta[c] (y overwritten; the scale formed in
/// double, the rest fp32 in the host's order). y must not alias x.
void batch_norm_forward_normalize(cudaStream_t stream, const ActivationShape& shape,
                                  core::DType dtype, const void* x, const float* gamma,
                                  const float* beta, const float* mean, const float* invstd,
                                  void* y);

/// sums[c] = sum of dy, sums[C + c] = sum of dy * xhat with xhat = (x - mean[c]) * invstd[c],
/// over this rank's batch (overwritten), and dbeta[c] = sums[c], dgamma[c] = sums[C + c]: the
/// weight gradients are this rank's (overwritten, as the host's; the data-parallel gradient
/// all-reduce sums them later), while `sums` is the buffer the caller all-reduces. Reduction as
/// batch_norm_forward_sums.
void batch_norm_backward_sums(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                              const void* x, const void* dy, const float* mean, const float* invstd,
                              void* workspace, std::size_t workspace_bytes, float* sums,
                              float* dgamma, float* dbeta);

/// dx = k * (dy - sum_dy / M - (x - mean) * slope) with k = gamma * invstd and
/// slope = invstd * sum(dy * xhat) / M (M = count; the per-channel constants formed in double,
/// once per channel, into the workspace; the rest fp32 in the host's order); dx overwritten and
/// may alias dy. sums [2C] as batch_norm_backward_sums wrote them, all-reduced for synchronised
/// batch norm. Throws std::domain_error when count < 1.
void batch_norm_backward_dx(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                            const void* x, const void* dy, const float* gamma, const float* mean,
                            const float* invstd, const float* sums, std::int64_t count,
                            void* workspace, std::size_t workspace_bytes, void* dx);

}  // namespace scaletune::kernels::cuda
